package dev.postbox.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.Await;
import dev.postbox.testing.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A claimer that stalls between its claim's statements and its COMMIT (a GC pause, a frozen
 * process, a network partition) holds its locks until it resumes or the server drops it. On MariaDB
 * it must hold only the rows it is claiming: a locking scan of the due range would also lock the
 * first row past it, the next one to come due, and keep it from every other claimer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbStalledClaimTest {
  private TestDatabase db;
  private final ExecutorService executor = Executors.newCachedThreadPool();

  @BeforeAll
  void open() {
    db = TestDatabase.mariadb();
  }

  @BeforeEach
  void reset() {
    db.resetSchema();
  }

  @AfterAll
  void close() {
    executor.shutdownNow();
    db.close();
  }

  @Test
  void aClaimerStalledBeforeItsCommitHoldsOnlyTheRowsItClaims() throws Exception {
    long due = insert(0);
    long later = insert(4000); // a must stall before this is due, even on a slow machine
    Stalled a = stalledClaim("a");
    try {
      List<Long> claimedByB = firstRowsClaimedBy(claimer(db.dataSource(), "b"));
      assertEquals(List.of(later), claimedByB, "b got the row a is claiming, or not the later one");
      assertFalse(a.claimed.isDone(), "a is still stalled");
    } finally {
      a.stalling.release.countDown();
    }
    assertEquals(List.of(due), a.claimed.get(10, TimeUnit.SECONDS));
    assertEquals("a", leasedBy(due));
    assertEquals("b", leasedBy(later));
  }

  @Test
  void rowsHeldByStalledClaimersDoNotHideTheRowsBehindThem() throws Exception {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      ids.add(insert(0));
    }
    // batch 10: each claim reads 20 candidates, so the first window b reads is all held
    Stalled first = stalledClaim("a1");
    Stalled second = stalledClaim("a2");
    try {
      assertEquals(ids.subList(20, 30), ids(claimer(db.dataSource(), "b").claim(10, null)));
    } finally {
      first.stalling.release.countDown();
      second.stalling.release.countDown();
    }
    assertEquals(ids.subList(0, 10), first.claimed.get(10, TimeUnit.SECONDS));
    assertEquals(ids.subList(10, 20), second.claimed.get(10, TimeUnit.SECONDS));
  }

  @Test
  void aClaimerStalledAfterFindingNothingDueLocksNothing() throws Exception {
    stallAfterFindingNothingDue(null);
  }

  @Test
  void aClaimerStalledAfterFindingNothingDueWhileFinishingRowsLocksNothing() throws Exception {
    // finishing a row it no longer holds: the finish goes in the claim's first batch
    Finish carried = new Finish(1, List.of(999_999L));
    stallAfterFindingNothingDue(carried);
    assertEquals(0, carried.written);
  }

  private void stallAfterFindingNothingDue(Finish carried) throws Exception {
    long later = insert(4000);
    Stalled a = stalledClaim("a", carried);
    try {
      assertTrue(
          a.stalling.executed.stream().noneMatch(sql -> sql.contains("FOR UPDATE")),
          "a locking statement ran with nothing due: " + a.stalling.executed);
      List<Long> claimedByB = firstRowsClaimedBy(claimer(db.dataSource(), "b"));
      assertEquals(List.of(later), claimedByB);
    } finally {
      a.stalling.release.countDown();
    }
    assertEquals(List.of(), a.claimed.get(10, TimeUnit.SECONDS));
    assertEquals("b", leasedBy(later));
  }

  /** A claim by {@code instance} running on another thread, held at its COMMIT. */
  private record Stalled(StallingDataSource stalling, Future<List<Long>> claimed) {}

  /** Starts a claim by {@code instance} and returns once it is held at its COMMIT. */
  private Stalled stalledClaim(String instance) throws InterruptedException {
    return stalledClaim(instance, null);
  }

  /** {@link #stalledClaim(String)} of a claim that also records {@code carried}. */
  private Stalled stalledClaim(String instance, Finish carried) throws InterruptedException {
    StallingDataSource stalling = new StallingDataSource(db.dataSource());
    TestClaimer claimer = claimer(stalling.dataSource, instance);
    Future<List<Long>> claimed = executor.submit(() -> ids(claimer.claim(10, carried)));
    assertTrue(stalling.stalled.await(10, TimeUnit.SECONDS), instance + " reached its COMMIT");
    return new Stalled(stalling, claimed);
  }

  /** Claims of one instance on the outbox table, batch 10, each on a connection of its own. */
  private record TestClaimer(DataSource dataSource, ClaimStrategy strategy) {
    List<Claimed<Long>> claim(int limit, Finish finish) throws SQLException {
      List<Claimed<Long>> rows = new ArrayList<>();
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(true);
        RowReader<Long> reader =
            (rs, dialect, leased) ->
                (id, attempt, claims) ->
                    new Claimed<>(id, attempt, claims, 0, rs.getString("event_id"), "t", id);
        strategy.claim(c, new ClaimRequest<>(limit, null, finish, false, reader, rows));
      }
      return rows;
    }
  }

  private TestClaimer claimer(DataSource dataSource, String instance) {
    QueueTable<Long> table =
        new QueueTable<>(
            "postbox_outbox",
            new QueueTable.Columns("event_id, topic", "event_id", "topic", "", "NULL"),
            QueueTable.Clauses.NONE,
            null,
            null,
            null);
    QueueSql sql = QueueSql.of(Dialects.of(Database.MYSQL), table, 10);
    return new TestClaimer(dataSource, sql.claims(instance, Duration.ofSeconds(60), false));
  }

  private static List<Long> ids(List<Claimed<Long>> rows) {
    return rows.stream().map(Claimed::id).toList();
  }

  /** Claims with {@code claimer} until a claim gets rows (the row that comes due); its ids. */
  private static List<Long> firstRowsClaimedBy(TestClaimer claimer) {
    List<Long> claimed = new ArrayList<>();
    Await.until(
        Duration.ofSeconds(15),
        "a claim by the other claimer that gets the row that came due",
        () -> {
          try {
            claimed.addAll(ids(claimer.claim(10, null)));
          } catch (SQLException e) {
            throw new AssertionError(e);
          }
          return !claimed.isEmpty();
        });
    return claimed;
  }

  /** Inserts one outbox row due in {@code dueInMillis}; returns its id. */
  private long insert(long dueInMillis) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        var ps =
            c.prepareStatement(
                "INSERT INTO postbox_outbox (event_id, topic, payload, available_at, created_at)"
                    + " VALUES (UUID(), 't', '{}',"
                    + " TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6))",
                Statement.RETURN_GENERATED_KEYS)) {
      ps.setLong(1, dueInMillis);
      ps.executeUpdate();
      try (var keys = ps.getGeneratedKeys()) {
        keys.next();
        return keys.getLong(1);
      }
    }
  }

  private String leasedBy(long id) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        var ps = c.prepareStatement("SELECT leased_by FROM postbox_outbox WHERE id = ?")) {
      ps.setLong(1, id);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  /**
   * Wraps a data source: records the SQL its connections run or batch and holds every COMMIT
   * (statement, batch holding one, or JDBC call) until {@link #release}, counting {@link #stalled}
   * down when one arrives.
   */
  private static final class StallingDataSource {
    final CountDownLatch stalled = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<String> executed = new CopyOnWriteArrayList<>();
    final DataSource dataSource;

    StallingDataSource(DataSource target) {
      dataSource =
          proxy(
              DataSource.class,
              target,
              (method, args, result) ->
                  method.equals("getConnection") ? connection((Connection) result) : result);
    }

    private Connection connection(Connection target) {
      return proxy(
          Connection.class,
          target,
          (method, args, result) -> {
            if (method.startsWith("prepare")) {
              executed.add((String) args[0]);
            }
            return method.equals("createStatement") ? statement((Statement) result) : result;
          });
    }

    private Statement statement(Statement target) {
      List<String> batch = new ArrayList<>();
      return proxy(
          Statement.class,
          target,
          (method, args, result) -> {
            if (method.equals("addBatch")) {
              batch.add((String) args[0]);
            } else if (method.equals("executeBatch") || method.equals("clearBatch")) {
              batch.clear();
            }
            return result;
          },
          method -> method.equals("executeBatch") && batch.stream().anyMatch(COMMIT::equals));
    }

    private static final String COMMIT = "COMMIT";

    private interface After {
      Object apply(String method, Object[] args, Object result) throws Exception;
    }

    private <T> T proxy(Class<T> type, T target, After after) {
      return proxy(type, target, after, method -> false);
    }

    /** {@code target} with {@code after} applied; also stalls where {@code commits} says so. */
    private <T> T proxy(Class<T> type, T target, After after, Predicate<String> commits) {
      return type.cast(
          Proxy.newProxyInstance(
              type.getClassLoader(),
              new Class<?>[] {type},
              (p, method, args) -> {
                String name = method.getName();
                boolean commit =
                    name.equals("commit")
                        || commits.test(name)
                        || (name.startsWith("execute")
                            && args != null
                            && "COMMIT".equalsIgnoreCase(String.valueOf(args[0])));
                if ((name.startsWith("execute") || name.equals("addBatch"))
                    && args != null
                    && args[0] instanceof String sql) {
                  executed.add(sql);
                }
                if (commit) {
                  stalled.countDown();
                  release.await();
                }
                try {
                  return after.apply(name, args, method.invoke(target, args));
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              }));
    }
  }
}

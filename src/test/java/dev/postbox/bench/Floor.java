package dev.postbox.bench;

import dev.postbox.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The floor: the delivery loop a careful user would write by hand, with nothing Postbox adds (no
 * fencing, no lease renewal, no outage detection). One connection per loop, prepared statements
 * reused; per batch one claim transaction (a batched lease: on the shipped tables like Postbox's,
 * {@code leased_by}, {@code attempts + 1}, {@code available_at = now + 2 min}), a no-op delivery of
 * each row, and one batched DELETE (or UPDATE to done for jobs). {@link #drain} runs several loops
 * at once, each on its own thread and connection, as a user who wants a backlog gone would.
 *
 * <ul>
 *   <li>PostgreSQL: {@code UPDATE … WHERE id IN (SELECT … ORDER BY … LIMIT n FOR UPDATE SKIP
 *       LOCKED) RETURNING …} in auto-commit.
 *   <li>MariaDB: {@code SELECT … FOR UPDATE SKIP LOCKED} + {@code UPDATE … WHERE id IN (…)} in one
 *       READ COMMITTED transaction.
 *   <li>H2: the same two statements (H2 has no UPDATE … RETURNING).
 *   <li>SQLite: {@code BEGIN IMMEDIATE}, {@code UPDATE … RETURNING}, {@code COMMIT}.
 * </ul>
 *
 * <p>Not thread-safe: one loop per instance.
 */
final class Floor implements AutoCloseable {

  /** Which table and how a delivered row is finished. */
  enum Kind {
    OUTBOX(
        "postbox_outbox", "id, attempts, created_at, event_id, topic, msg_key, payload, headers"),
    JOBS_DONE("postbox_jobs", "id, attempts, created_at, name, payload, max_attempts"),
    JOBS_DELETE("postbox_jobs", "id, attempts, created_at, name, payload, max_attempts"),
    /**
     * {@link BenchDb#MINIMAL}: {@code id} primary key, {@code payload}, {@code leased_until}; no
     * other index. Due: {@code leased_until <= now}, claimed by primary key, deleted when done.
     */
    MINIMAL(BenchDb.MINIMAL, "id, payload");

    final String table;
    final String columns;

    Kind(String table, String columns) {
      this.table = table;
      this.columns = columns;
    }
  }

  /** The claim's ORDER BY: as Postbox ({@code available_at, id}) or by primary key. */
  enum Order {
    DUE("available_at, id"),
    ID("id");

    final String sql;

    Order(String sql) {
      this.sql = sql;
    }
  }

  /** A claimed row: its id and the benchmark index it carries. */
  record Row(long id, int index) {}

  private final Connection c;
  private final Database db;
  private final Kind kind;
  private final int batch;
  private final String now;
  private final PreparedStatement claim;
  private final Statement plain;
  private final Map<Integer, PreparedStatement> leases = new HashMap<>();
  private final Map<Integer, PreparedStatement> finishes = new HashMap<>();
  private final AtomicLong retries;

  Floor(Connection c, BenchDb bench, Kind kind, int batch, Order order, AtomicLong retries)
      throws SQLException {
    this.c = c;
    this.db = bench.database();
    this.kind = kind;
    this.batch = batch;
    this.now = bench.now();
    this.retries = retries;
    String due =
        kind == Kind.MINIMAL ? "leased_until <= " + now : "state = 0 AND available_at <= " + now;
    String orderBy = kind == Kind.MINIMAL ? "id" : order.sql;
    // the claim; PostgreSQL and SQLite bind leased_by (not on the minimal table) then the limit,
    // MariaDB and H2 the limit
    String sql =
        switch (db) {
          case POSTGRESQL, SQLITE ->
              """
              UPDATE %1$s SET %4$s
               WHERE id IN (SELECT id FROM %1$s WHERE %5$s ORDER BY %2$s LIMIT ?%6$s)
              RETURNING %3$s"""
                  .formatted(
                      kind.table,
                      orderBy,
                      kind.columns,
                      leaseSet(),
                      due,
                      db == Database.POSTGRESQL ? " FOR UPDATE SKIP LOCKED" : "");
          case MYSQL, H2 ->
              """
              SELECT %3$s FROM %1$s WHERE %4$s ORDER BY %2$s LIMIT ? FOR UPDATE SKIP LOCKED"""
                  .formatted(kind.table, orderBy, kind.columns, due);
        };
    if (db == Database.MYSQL) {
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }
    if (db == Database.MYSQL || db == Database.H2) {
      c.setAutoCommit(false);
    } else {
      c.setAutoCommit(true);
    }
    this.claim = c.prepareStatement(sql);
    this.plain = c.createStatement();
  }

  /** Claims up to a batch of due rows in one short transaction; empty if none is due. */
  List<Row> claim() throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return claimOnce();
      } catch (SQLException e) {
        rollback();
        if (attempt >= 10 || !isTransient(e)) {
          throw e;
        }
        retries.incrementAndGet();
      }
    }
  }

  private List<Row> claimOnce() throws SQLException {
    List<Row> rows = new ArrayList<>(batch);
    switch (db) {
      case POSTGRESQL -> {
        bindClaim();
        read(claim, rows);
      }
      case SQLITE -> {
        plain.execute("BEGIN IMMEDIATE");
        bindClaim();
        read(claim, rows);
        plain.execute("COMMIT");
      }
      case MYSQL, H2 -> {
        claim.setInt(1, batch);
        read(claim, rows);
        if (!rows.isEmpty()) {
          PreparedStatement lease = leases.computeIfAbsent(rows.size(), this::prepareLease);
          int p = 1;
          if (kind != Kind.MINIMAL) {
            lease.setString(p++, "floor");
          }
          for (Row row : rows) {
            lease.setLong(p++, row.id());
          }
          lease.executeUpdate();
        }
        c.commit();
      }
    }
    return rows;
  }

  private void bindClaim() throws SQLException {
    int p = 1;
    if (kind != Kind.MINIMAL) {
      claim.setString(p++, "floor");
    }
    claim.setInt(p, batch);
  }

  /** The lease a claim sets: on the minimal table only its expiry. */
  private String leaseSet() {
    String until =
        switch (db) {
          case POSTGRESQL -> "now() + interval '2 minutes'";
          case MYSQL -> now + " + INTERVAL 2 MINUTE";
          case H2 -> "DATEADD(MINUTE, 2, " + now + ")";
          case SQLITE -> now + " + 120000";
        };
    return kind == Kind.MINIMAL
        ? "leased_until = " + until
        : "leased_by = ?, attempts = attempts + 1, available_at = " + until;
  }

  private void read(PreparedStatement ps, List<Row> rows) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long id = rs.getLong("id");
        if (kind == Kind.MINIMAL) {
          rows.add(new Row(id, Deliveries.indexOfPayload(rs.getString("payload"))));
          continue;
        }
        rs.getInt("attempts");
        rs.getObject("created_at");
        int index;
        if (kind == Kind.OUTBOX) {
          index = Deliveries.indexOfEventId(rs.getString("event_id"));
          rs.getString("topic");
          rs.getString("msg_key");
          rs.getString("payload");
          rs.getString("headers");
        } else {
          rs.getString("name");
          index = Deliveries.indexOfPayload(rs.getString("payload"));
          rs.getInt("max_attempts");
        }
        rows.add(new Row(id, index));
      }
    }
  }

  /** Deletes the delivered rows (or marks them done) in one statement. */
  void finish(List<Row> rows) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        PreparedStatement ps = finishes.computeIfAbsent(rows.size(), this::prepareFinish);
        int p = 1;
        for (Row row : rows) {
          ps.setLong(p++, row.id());
        }
        ps.executeUpdate();
        if (!c.getAutoCommit()) {
          c.commit();
        }
        return;
      } catch (SQLException e) {
        rollback();
        if (attempt >= 10 || !isTransient(e)) {
          throw e;
        }
        retries.incrementAndGet();
      }
    }
  }

  /** MariaDB and H2: the claim's second statement. Params: leased_by (not minimal), n ids. */
  private PreparedStatement prepareLease(int n) {
    return prepare("UPDATE %s SET %s WHERE id IN (%s)".formatted(kind.table, leaseSet(), marks(n)));
  }

  /** Deletes, or for jobs kept after they finish marks done, n rows. Params: n ids. */
  private PreparedStatement prepareFinish(int n) {
    return prepare(
        kind == Kind.JOBS_DONE
            ? """
              UPDATE %s SET state = 1, available_at = %s, leased_by = NULL, dedupe_key = NULL
               WHERE id IN (%s)"""
                .formatted(kind.table, now, marks(n))
            : "DELETE FROM %s WHERE id IN (%s)".formatted(kind.table, marks(n)));
  }

  private PreparedStatement prepare(String sql) {
    try {
      return c.prepareStatement(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static String marks(int n) {
    return "?" + ", ?".repeat(n - 1);
  }

  private void rollback() {
    try {
      if (db == Database.SQLITE) {
        if (!c.getAutoCommit()) {
          c.rollback();
        } else {
          plain.execute("ROLLBACK");
        }
      } else if (!c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException ignored) {
      // nothing was open (SQLite: no transaction active)
    }
  }

  private boolean isTransient(SQLException e) {
    String state = String.valueOf(e.getSQLState());
    return switch (db) {
      case POSTGRESQL -> state.equals("40001") || state.equals("40P01");
      case MYSQL -> e.getErrorCode() == 1213 || e.getErrorCode() == 1205;
      case H2 -> state.equals("40001") || state.equals("HYT00");
      case SQLITE -> (e.getErrorCode() & 0xff) == 5 || (e.getErrorCode() & 0xff) == 6;
    };
  }

  @Override
  public void close() throws SQLException {
    claim.close();
    plain.close();
    for (PreparedStatement ps : leases.values()) {
      ps.close();
    }
    for (PreparedStatement ps : finishes.values()) {
      ps.close();
    }
  }

  /**
   * The hand-written loop: claim, deliver each row, finish the batch, repeat. With {@code wake}
   * null it stops at the first empty claim (W1: the backlog is all there); otherwise an empty claim
   * waits for a producer's signal or {@code poll}, until {@code stop} holds.
   */
  static void run(
      BenchDb bench,
      Kind kind,
      int batch,
      Order order,
      Consumer<Row> deliver,
      Progress progress,
      FloorWake wake,
      Duration poll,
      BooleanSupplier stop,
      AtomicLong retries)
      throws SQLException, InterruptedException {
    try (Connection c = bench.dataSource().getConnection();
        Floor floor = new Floor(c, bench, kind, batch, order, retries)) {
      while (!stop.getAsBoolean()) {
        List<Row> rows = floor.claim();
        if (rows.isEmpty()) {
          if (wake == null) {
            return;
          }
          wake.await(poll);
          continue;
        }
        for (Row row : rows) {
          deliver.accept(row);
        }
        floor.finish(rows);
        progress.add(rows.size());
      }
    }
  }

  /**
   * Drains the backlog with {@code threads} loops at once, each on its own platform thread and
   * pooled connection, each claiming {@code batch} rows at a time until its first empty claim (the
   * rows the others hold are theirs to finish). Rethrows the first loop's failure.
   */
  static void drain(
      BenchDb bench,
      Kind kind,
      int threads,
      int batch,
      Consumer<Row> deliver,
      Progress progress,
      AtomicLong retries)
      throws Exception {
    List<Thread> loops = new ArrayList<>(threads);
    AtomicReference<Exception> failure = new AtomicReference<>();
    for (int i = 0; i < threads; i++) {
      loops.add(
          Thread.ofPlatform()
              .name("bench-floor-" + i)
              .start(
                  () -> {
                    try {
                      run(
                          bench,
                          kind,
                          batch,
                          kind == Kind.MINIMAL ? Order.ID : Order.DUE,
                          deliver,
                          progress,
                          null,
                          Duration.ZERO,
                          () -> false,
                          retries);
                    } catch (Exception e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    for (Thread loop : loops) {
      loop.join();
    }
    if (failure.get() != null) {
      throw failure.get();
    }
  }
}

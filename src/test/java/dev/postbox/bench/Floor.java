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
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The floor: the delivery loop a careful user would write by hand against the shipped tables, with
 * nothing Postbox adds (no fencing, no concurrency, no lease renewal, no outage detection). One
 * connection for the whole loop, prepared statements reused; per batch one claim transaction (a
 * batched lease like Postbox's: {@code leased_by}, {@code attempts + 1}, {@code available_at = now
 * + 2 min}), a no-op delivery of each row, and one batched DELETE (or UPDATE to done for jobs).
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
    JOBS_DELETE("postbox_jobs", "id, attempts, created_at, name, payload, max_attempts");

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
    // the claim; PostgreSQL and SQLite bind leased_by then the limit, MariaDB and H2 the limit
    String sql =
        switch (db) {
          case POSTGRESQL ->
              """
              UPDATE %1$s SET leased_by = ?, attempts = attempts + 1,
                     available_at = now() + interval '2 minutes'
               WHERE id IN (SELECT id FROM %1$s
                             WHERE state = 0 AND available_at <= now()
                             ORDER BY %2$s LIMIT ? FOR UPDATE SKIP LOCKED)
              RETURNING %3$s"""
                  .formatted(kind.table, order.sql, kind.columns);
          case MYSQL, H2 ->
              """
              SELECT %3$s FROM %1$s
               WHERE state = 0 AND available_at <= %4$s
               ORDER BY %2$s LIMIT ? FOR UPDATE SKIP LOCKED"""
                  .formatted(kind.table, order.sql, kind.columns, now);
          case SQLITE ->
              """
              UPDATE %1$s SET leased_by = ?, attempts = attempts + 1, available_at = %4$s + 120000
               WHERE id IN (SELECT id FROM %1$s
                             WHERE state = 0 AND available_at <= %4$s
                             ORDER BY %2$s LIMIT ?)
              RETURNING %3$s"""
                  .formatted(kind.table, order.sql, kind.columns, now);
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
        claim.setString(1, "floor");
        claim.setInt(2, batch);
        read(claim, rows);
      }
      case SQLITE -> {
        plain.execute("BEGIN IMMEDIATE");
        claim.setString(1, "floor");
        claim.setInt(2, batch);
        read(claim, rows);
        plain.execute("COMMIT");
      }
      case MYSQL, H2 -> {
        claim.setInt(1, batch);
        read(claim, rows);
        if (!rows.isEmpty()) {
          PreparedStatement lease = leases.computeIfAbsent(rows.size(), this::prepareLease);
          int p = 1;
          lease.setString(p++, "floor");
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

  private void read(PreparedStatement ps, List<Row> rows) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long id = rs.getLong("id");
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

  /** MariaDB and H2: the claim's second statement. Params: leased_by, then n ids. */
  private PreparedStatement prepareLease(int n) {
    String lease =
        db == Database.MYSQL ? now + " + INTERVAL 2 MINUTE" : "DATEADD(MINUTE, 2, " + now + ")";
    return prepare(
        """
        UPDATE %s SET leased_by = ?, attempts = attempts + 1, available_at = %s
         WHERE id IN (%s)"""
            .formatted(kind.table, lease, marks(n)));
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
      Wake wake,
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

  /** What producers signal after commit so the loop claims at once: a flag and a condition. */
  static final class Wake {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signalled = lock.newCondition();
    private boolean requested;

    void signal() {
      lock.lock();
      try {
        requested = true;
        signalled.signalAll();
      } finally {
        lock.unlock();
      }
    }

    void await(Duration timeout) throws InterruptedException {
      lock.lock();
      try {
        long nanos = timeout.toNanos();
        while (!requested && nanos > 0) {
          nanos = signalled.awaitNanos(nanos);
        }
        requested = false;
      } finally {
        lock.unlock();
      }
    }
  }
}

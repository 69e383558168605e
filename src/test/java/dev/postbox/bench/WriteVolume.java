package dev.postbox.bench;

import dev.postbox.Database;
import dev.postbox.Message;
import dev.postbox.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Write volume: the bytes the database logs per message for add + claim + finish, Postbox beside
 * the floor, on the same shipped table ({@code postbox_outbox}: primary key, unique event id, the
 * claim index and the key index). PostgreSQL: WAL, {@code pg_current_wal_insert_lsn()} before and
 * after; MariaDB: InnoDB redo, {@code Innodb_lsn_current} before and after (the binary log, when
 * on, is not counted). Both positions are the server's, so another database's writes meanwhile
 * count too: run it on a quiet server. The position after the drain is read once it has held still
 * for half a second, so that InnoDB's purge of the deleted rows, which runs after the drain in the
 * background, counts for the drain that caused it rather than the next.
 *
 * <p>Each side adds through its own path, one transaction per {@code bench.batch} messages (the
 * floor: a JDBC batch of hand-written INSERTs with a 36-character event id, as long as Postbox's
 * generated UUID; Postbox: {@code outbox.addAll}), then {@code ANALYZE} (not counted), then drains
 * (the floor: each loop of the W1 grid; Postbox: at the defaults, ordered by key, and unordered as
 * W1). On PostgreSQL a {@code CHECKPOINT} precedes the add, so both sides pay the full-page images
 * of every page they first touch.
 */
final class WriteVolume {
  static final String UNORDERED = "Postbox unordered";
  static final String DEFAULTS = "Postbox defaults (ordered by key)";

  private final PerformanceHarness h;
  private final AtomicLong retries = new AtomicLong();
  private final WalAttribution wal = WalAttribution.fromSystemProperties();

  WriteVolume(PerformanceHarness h) {
    this.h = h;
  }

  private List<String> contestants() {
    List<String> list = new ArrayList<>();
    int batch = h.config.floorBatches().stream().mapToInt(Integer::intValue).max().orElse(500);
    for (int threads : h.config.floorThreads()) {
      list.add("floor " + Drain.floorName(threads, batch));
    }
    list.add(UNORDERED);
    list.add(DEFAULTS);
    return list;
  }

  String run(List<BenchDb> all) {
    List<BenchDb> dbs =
        all.stream()
            .filter(db -> db.database() == Database.POSTGRESQL || db.database() == Database.MYSQL)
            .toList();
    Map<String, List<Double>> r = new LinkedHashMap<>();
    for (BenchDb db : dbs) {
      for (int n : h.config.drainSizes()) {
        for (int rep = 0; rep < h.config.repetitions(); rep++) {
          for (String c : PerformanceHarness.interleaved(contestants(), rep)) {
            double[] v = measure(db, n, c, "rep " + (rep + 1));
            String k = db.name() + "/" + n + "/" + c;
            r.computeIfAbsent(k + "/add", x -> new ArrayList<>()).add(v[0]);
            r.computeIfAbsent(k + "/drain", x -> new ArrayList<>()).add(v[1]);
            r.computeIfAbsent(k + "/vacuum", x -> new ArrayList<>()).add(v[2]);
            r.computeIfAbsent(k + "/total", x -> new ArrayList<>()).add(v[0] + v[1] + v[2]);
          }
        }
      }
    }
    MarkdownTable t =
        new MarkdownTable(
            "database",
            "messages",
            "contestant",
            "add B/msg",
            "claim + finish B/msg",
            "VACUUM after B/msg",
            "total B/msg",
            "total, each run",
            "÷ floor",
            "target ≤ 1.3×");
    for (BenchDb db : dbs) {
      for (int n : h.config.drainSizes()) {
        String k = db.name() + "/" + n + "/";
        double floor = Double.NaN;
        for (String c : contestants()) {
          double total = Stats.median(r.getOrDefault(k + c + "/total", List.of()));
          if (c.startsWith("floor") && !(total >= floor)) {
            floor = total;
          }
        }
        for (String c : contestants()) {
          double total = Stats.median(r.getOrDefault(k + c + "/total", List.of()));
          boolean isFloor = c.startsWith("floor");
          t.row(
              db.name() + (db.database() == Database.POSTGRESQL ? " (WAL)" : " (redo)"),
              String.format(Locale.ROOT, "%,d", n),
              c,
              Stats.decimal(Stats.median(r.getOrDefault(k + c + "/add", List.of())), 0),
              Stats.decimal(Stats.median(r.getOrDefault(k + c + "/drain", List.of())), 0),
              db.database() == Database.POSTGRESQL
                  ? Stats.decimal(Stats.median(r.getOrDefault(k + c + "/vacuum", List.of())), 0)
                  : "–",
              Stats.decimal(total, 0),
              r.getOrDefault(k + c + "/total", List.of()).stream()
                  .map(v -> Stats.decimal(v, 0))
                  .collect(Collectors.joining(", ")),
              isFloor ? "–" : Stats.ratio(total / floor),
              isFloor ? "–" : Stats.met(total / floor, 1.3, false));
        }
      }
    }
    return "### Write volume: bytes logged per message\n\n"
        + "Add (one transaction per "
        + h.config.batchSize()
        + " messages, each side its own path), claim + finish (the drain) and on PostgreSQL a"
        + " `VACUUM` after, on `postbox_outbox`; PostgreSQL WAL"
        + (wal != null ? " (this database's records, by `pg_waldump`)" : "")
        + ", MariaDB InnoDB redo (its purge after the drain included); medians; ÷ floor against"
        + " the floor with the fewest bytes.\n\n"
        + t;
  }

  /** One add and drain; returns the bytes logged per message by the add and by the drain. */
  private double[] measure(BenchDb db, int n, String contestant, String label) {
    String what = "write volume " + db.name() + " " + n + " " + contestant + " " + label;
    try {
      db.reset();
      boolean floor = contestant.startsWith("floor");
      Outbox outbox = Outbox.builder().orderedByKey(contestant.equals(DEFAULTS)).build();
      if (db.database() == Database.POSTGRESQL) {
        db.execute("CHECKPOINT");
      }
      long start = settled(db);
      if (floor) {
        addByHand(db, n);
      } else {
        addWithPostbox(db, outbox, n);
      }
      long added = position(db);
      db.execute(
          db.database() == Database.POSTGRESQL
              ? "ANALYZE postbox_outbox"
              : "ANALYZE TABLE postbox_outbox");
      long analysed = position(db);
      long[] statements = statements(db);
      Deliveries d = new Deliveries(n);
      Progress p = new Progress(n);
      long t0 = System.nanoTime();
      if (floor) {
        String[] grid = contestant.substring("floor ".length()).split("×");
        Floor.drain(
            db,
            Floor.Kind.OUTBOX,
            Integer.parseInt(grid[0]),
            Integer.parseInt(grid[1]),
            row -> d.delivered(row.index()),
            p,
            retries);
      } else {
        h.drain(db.dataSource(), outbox, d, p, n);
      }
      long nanos = System.nanoTime() - t0;
      long drained = settled(db);
      long[] statementsAfter = statements(db);
      long vacuumed = drained;
      if (db.database() == Database.POSTGRESQL) {
        // the dead rows' cleanup is the drain's cost too: Postbox runs some of it itself
        // (vacuumEvery), the floor none; on MariaDB the purge is in the drain's figure (settled)
        db.execute("VACUUM postbox_outbox");
        vacuumed = position(db);
      }
      h.checkDrained(what, db, d);
      double add = (added - start) / (double) n;
      double drain = (drained - analysed) / (double) n;
      double vacuum = (vacuumed - drained) / (double) n;
      String raw = "";
      if (db.database() == Database.MYSQL) {
        raw =
            String.format(
                Locale.ROOT,
                " (the server's commits, UPDATEs, DELETEs meanwhile: %d, %d, %d)",
                statementsAfter[0] - statements[0],
                statementsAfter[1] - statements[1],
                statementsAfter[2] - statements[2]);
      }
      if (wal != null && db.database() == Database.POSTGRESQL) {
        raw =
            String.format(
                Locale.ROOT,
                " (the server's: add %.0f, claim + finish %.0f, VACUUM %.0f)",
                add,
                drain,
                vacuum);
        long oid = db.count("SELECT oid FROM pg_database WHERE datname = current_database()");
        add = wal.bytes(oid, start, added) / (double) n;
        drain = wal.bytes(oid, analysed, drained) / (double) n;
        vacuum = wal.bytes(oid, drained, vacuumed) / (double) n;
      }
      h.log(
          "%s: add %s B/msg, claim + finish %s B/msg, VACUUM %s B/msg%s, drain %s msg/s",
          what,
          Stats.decimal(add, 0),
          Stats.decimal(drain, 0),
          Stats.decimal(vacuum, 0),
          raw,
          Stats.rate(n / (nanos / 1e9)));
      return new double[] {add, drain, vacuum};
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
      return new double[] {Double.NaN, Double.NaN, Double.NaN};
    }
  }

  /** The floor's add: a hand-written INSERT, a JDBC batch and a commit per batch of messages. */
  private void addByHand(BenchDb db, int n) throws SQLException {
    String sql =
        "INSERT INTO postbox_outbox (event_id, topic, msg_key, payload, available_at, created_at)"
            + " VALUES (?, 'bench.event', ?, ?, "
            + db.now()
            + ", "
            + db.now()
            + ")";
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        // as long as a UUID, and Floor reads the index back from it
        ps.setString(1, String.format(Locale.ROOT, "e%035d", i));
        ps.setString(2, "k" + i % 64);
        ps.setString(3, Deliveries.payload(i));
        ps.addBatch();
        if ((i + 1) % h.config.batchSize() == 0 || i == n - 1) {
          ps.executeBatch();
          c.commit();
        }
      }
      c.setAutoCommit(true);
    }
  }

  /** Postbox's add: {@code outbox.addAll} of a batch of messages per transaction. */
  private void addWithPostbox(BenchDb db, Outbox outbox, int n) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int from = 0; from < n; from += h.config.batchSize()) {
        List<Message> batch = new ArrayList<>();
        for (int i = from; i < Math.min(n, from + h.config.batchSize()); i++) {
          batch.add(Message.of("bench.event", Deliveries.payload(i)).key("k" + i % 64));
        }
        outbox.addAll(c, batch);
        c.commit();
      }
      c.setAutoCommit(true);
    }
  }

  /**
   * The log position; on MariaDB once the server has stopped writing: InnoDB purges deleted rows in
   * the background, after the drain, and what it logs is the drain's; the position must hold still
   * for half a second (at most 30 s of waiting, then as it is).
   */
  private static long settled(BenchDb db) throws SQLException, InterruptedException {
    long last = position(db);
    if (db.database() == Database.POSTGRESQL) {
      return last; // no background writer of its own here: autovacuum is off on the table
    }
    for (int i = 0; i < 60; i++) {
      Thread.sleep(500);
      long now = position(db);
      if (now == last) {
        return now;
      }
      last = now;
    }
    return last;
  }

  /** MariaDB: the server's commits, UPDATEs and DELETEs so far (every session's); else zeros. */
  private static long[] statements(BenchDb db) throws SQLException {
    long[] counts = new long[3];
    if (db.database() != Database.MYSQL) {
      return counts;
    }
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_update',"
                    + " 'Com_delete')")) {
      while (rs.next()) {
        int i = List.of("Com_commit", "Com_update", "Com_delete").indexOf(rs.getString(1));
        counts[i] = Long.parseLong(rs.getString(2));
      }
    }
    return counts;
  }

  /** The server's log position in bytes: WAL insert position, or InnoDB's current redo LSN. */
  private static long position(BenchDb db) throws SQLException {
    String sql =
        db.database() == Database.POSTGRESQL
            ? "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint"
            : "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'";
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return db.database() == Database.POSTGRESQL ? rs.getLong(1) : Long.parseLong(rs.getString(2));
    }
  }
}

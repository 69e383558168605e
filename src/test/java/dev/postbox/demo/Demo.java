package dev.postbox.demo;

import dev.postbox.Backoff;
import dev.postbox.Delivery;
import dev.postbox.Dispatcher;
import dev.postbox.Listener;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.Parked;
import dev.postbox.QueueStats;
import dev.postbox.Transport;
import dev.postbox.testing.TestDatabase;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.sqlite.SQLiteDataSource;

/**
 * The demo the README's first command runs: a transactional outbox on an embedded SQLite file.
 *
 * <p>Places a few orders, each in one transaction with its outbox event, rolls one back, and lets a
 * {@link Dispatcher} deliver the events to a console transport. One message (an invoice request)
 * always fails: it is retried, then parked. The database file survives restarts; each run uses new
 * order numbers and discards the parked message the previous run left.
 *
 * <p>Run with {@code mvn -B -q test-compile exec:java}; an optional argument names the database
 * file (default {@code target/postbox-demo.db}).
 */
public final class Demo {
  static final Path DEFAULT_FILE = Path.of("target", "postbox-demo.db");
  static final Path SCHEMA = Path.of("sql", "sqlite", "schema.sql");
  static final int MAX_ATTEMPTS = 3;
  static final Duration POLL_INTERVAL = Duration.ofMillis(50);
  static final Duration RETRY_DELAY = Duration.ofMillis(100);
  static final Duration TIMEOUT = Duration.ofSeconds(20);
  static final String ORDER_PLACED = "order.placed";
  static final String INVOICE_REQUESTED = "invoice.requested";

  /** The orders each run places: the second one is declined and rolled back. */
  private static final List<PlannedOrder> PLAN =
      List.of(
          new PlannedOrder(1, "alice", 4200, true, false),
          new PlannedOrder(2, "bob", 1999, false, true),
          new PlannedOrder(3, "carol", 750, false, false),
          new PlannedOrder(4, "dave", 12000, false, false));

  private Demo() {}

  /**
   * What one run did.
   *
   * @param run the run number, 1 on a new file
   * @param committedOrders the orders committed by this run, e.g. {@code order-101}
   * @param rolledBackOrder the order this run rolled back
   * @param delivered event ids the transport accepted, in delivery order
   * @param invoiceAttempts the attempt numbers the failing invoice message was sent with
   * @param stats the outbox's stats after the dispatcher was closed
   * @param parked the parked messages after the dispatcher was closed
   */
  public record Result(
      long run,
      List<String> committedOrders,
      String rolledBackOrder,
      List<String> delivered,
      List<Integer> invoiceAttempts,
      QueueStats stats,
      List<Parked> parked) {}

  private record PlannedOrder(
      int number, String customer, long totalCents, boolean wantsInvoice, boolean declined) {}

  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      // keep the console to the demo's own lines; warnings (e.g. the parked message) still show
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    run(args.length > 0 ? Path.of(args[0]) : DEFAULT_FILE, System.out);
  }

  /**
   * Runs the demo on the SQLite file {@code dbFile} (created if missing), printing to {@code out}.
   */
  public static Result run(Path dbFile, PrintStream out) throws Exception {
    Path parent = dbFile.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    SQLiteDataSource dataSource = dataSource(dbFile);
    Outbox outbox = Outbox.builder().build();

    long run = prepare(dataSource, outbox, dbFile, out);
    String rolledBack = null;
    List<String> committed = new ArrayList<>();
    for (PlannedOrder o : PLAN) {
      if (o.declined()) {
        rolledBack = orderId(run, o);
      } else {
        committed.add(orderId(run, o));
      }
    }
    Set<String> awaited = ConcurrentHashMap.newKeySet();
    committed.forEach(id -> awaited.add(id + ":v1"));
    String invoiceEventId = invoiceEventId(run, PLAN.get(0));

    CountDownLatch allDelivered = new CountDownLatch(awaited.size());
    CountDownLatch invoiceParked = new CountDownLatch(1);
    List<String> delivered = new CopyOnWriteArrayList<>();
    List<Integer> invoiceAttempts = new CopyOnWriteArrayList<>();

    Transport console =
        envelope -> {
          if (envelope.topic().equals(INVOICE_REQUESTED)) {
            invoiceAttempts.add(envelope.attempt());
            throw new IllegalStateException("invoice service unavailable");
          }
          delivered.add(envelope.eventId());
          out.println(
              String.format(
                  "  sent        %-17s %-14s key=%s attempt %d %s",
                  envelope.topic(),
                  envelope.eventId(),
                  envelope.key(),
                  envelope.attempt(),
                  envelope.payload()));
        };
    Listener listener =
        new Listener() {
          @Override
          public void delivered(Delivery delivery, Duration elapsed) {
            if (awaited.remove(delivery.ref())) {
              allDelivered.countDown();
            }
          }

          @Override
          public void failed(Delivery delivery, Throwable error, Duration retryIn) {
            out.println(
                String.format(
                    "  failed      %-17s %-14s attempt %d/%d: %s; retry in %d ms",
                    delivery.topic(),
                    delivery.ref(),
                    delivery.attempt(),
                    MAX_ATTEMPTS,
                    error.getMessage(),
                    retryIn.toMillis()));
          }

          @Override
          public void parked(Delivery delivery, String reason) {
            out.println(
                String.format(
                    "  parked      %-17s %-14s after %d attempts: %s",
                    delivery.topic(), delivery.ref(), delivery.attempt(), reason));
            if (delivery.ref().equals(invoiceEventId)) {
              invoiceParked.countDown();
            }
          }
        };

    long startedNanos = System.nanoTime();
    try (Dispatcher dispatcher =
        Dispatcher.builder(dataSource)
            .outbox(outbox, console)
            .instanceId("demo-run-" + run)
            .pollInterval(POLL_INTERVAL)
            .maxAttempts(MAX_ATTEMPTS)
            .backoff(Backoff.fixed(RETRY_DELAY))
            .shutdownTimeout(Duration.ofSeconds(5))
            .listener(listener)
            .build()) {
      dispatcher.start();
      out.printf(
          "dispatcher %s started: poll %d ms, %d attempts, fixed backoff %d ms%n",
          dispatcher.instanceId(), POLL_INTERVAL.toMillis(), MAX_ATTEMPTS, RETRY_DELAY.toMillis());

      for (PlannedOrder order : PLAN) {
        placeOrder(dataSource, outbox, run, order, out);
        dispatcher.wakeUp(); // deliver now instead of at the next poll
      }

      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      if (!allDelivered.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)
          || !invoiceParked.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
        throw new IllegalStateException(
            "demo timed out after "
                + TIMEOUT.toSeconds()
                + " s: still waiting for "
                + awaited
                + (invoiceParked.getCount() > 0 ? " and for " + invoiceEventId + " to park" : ""));
      }
    }
    out.printf(
        "all %d orders delivered and %s parked in %d ms; dispatcher closed%n",
        committed.size(),
        invoiceEventId,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));

    try (Connection c = dataSource.getConnection()) {
      QueueStats stats = outbox.stats(c);
      List<Parked> parked = outbox.parked(c, 10);
      out.printf(
          "%s: %d order rows, %d outbox events — it never existed%n",
          rolledBack,
          count(c, "SELECT COUNT(*) FROM demo_orders WHERE id = ?", rolledBack),
          count(c, "SELECT COUNT(*) FROM " + outbox.table() + " WHERE msg_key = ?", rolledBack));
      out.printf(
          "stats: pending=%d due=%d leased=%d parked=%d oldestPendingAge=%d ms%n",
          stats.pending(),
          stats.due(),
          stats.leased(),
          stats.parked(),
          stats.oldestPendingAge().toMillis());
      for (Parked p : parked) {
        out.printf(
            "parked: %s %s attempts=%d lastError=%s%n",
            p.ref(), p.topic(), p.attempts(), p.lastError());
      }
      out.println(
          "run again: the file keeps its orders; the next run uses new order numbers and"
              + " discards this run's parked message");
      return new Result(
          run,
          List.copyOf(committed),
          rolledBack,
          List.copyOf(delivered),
          List.copyOf(invoiceAttempts),
          stats,
          parked);
    }
  }

  /**
   * A plain SQLite data source on {@code dbFile} in WAL mode. It opens a new connection on every
   * {@code getConnection()}, so the dispatcher's threads never share one.
   */
  static SQLiteDataSource dataSource(Path dbFile) {
    SQLiteDataSource dataSource = new SQLiteDataSource();
    dataSource.setUrl("jdbc:sqlite:" + dbFile + "?journal_mode=WAL&busy_timeout=5000");
    // the data source's own config (busy timeout 3000 ms by default) overrides busy_timeout in the
    // URL, so set it here too
    dataSource.setBusyTimeout(5000);
    return dataSource;
  }

  /**
   * Creates the schema if the file is new, records a new run, and discards the messages parked by
   * earlier runs; returns the run number.
   */
  private static long prepare(DataSource dataSource, Outbox outbox, Path dbFile, PrintStream out)
      throws SQLException, IOException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        boolean created = false;
        if (!tableExists(c, outbox.table())) {
          if (!Files.isRegularFile(SCHEMA)) {
            throw new IllegalStateException(
                SCHEMA.toAbsolutePath() + " not found: run the demo from the project's root");
          }
          for (String statement : TestDatabase.statements(Files.readString(SCHEMA))) {
            s.execute(statement);
          }
          created = true;
        }
        s.execute(
            "CREATE TABLE IF NOT EXISTS demo_runs ("
                + " run INTEGER PRIMARY KEY AUTOINCREMENT,"
                + " started_at TEXT NOT NULL)");
        s.execute(
            "CREATE TABLE IF NOT EXISTS demo_orders ("
                + " id TEXT PRIMARY KEY,"
                + " run INTEGER NOT NULL,"
                + " customer TEXT NOT NULL,"
                + " total_cents INTEGER NOT NULL)");
        long earlierOrders = count(c, "SELECT COUNT(*) FROM demo_orders");
        long run;
        try (PreparedStatement ps =
            c.prepareStatement("INSERT INTO demo_runs (started_at) VALUES (?)")) {
          ps.setString(1, Instant.now().toString());
          ps.executeUpdate();
        }
        try (ResultSet rs = s.executeQuery("SELECT last_insert_rowid()")) {
          rs.next();
          run = rs.getLong(1);
        }
        out.printf("Postbox demo, run %d, on SQLite file %s%n", run, dbFile);
        if (created) {
          out.println("created the Postbox schema from " + SCHEMA);
        } else {
          out.printf(
              "schema already there; the file holds %d orders from %d earlier run%s%n",
              earlierOrders, run - 1, run == 2 ? "" : "s");
        }
        List<Parked> parked;
        while (!(parked = outbox.parked(c, 100)).isEmpty()) {
          for (Parked p : parked) {
            outbox.discard(c, p.ref());
            out.printf("discarded %s, parked by an earlier run%n", p.ref());
          }
        }
        long pending = outbox.countPending(c);
        if (pending > 0) {
          out.printf(
              "%d messages from an interrupted earlier run are still pending; they are delivered"
                  + " as soon as their lease (if any) expires%n",
              pending);
        }
        c.commit();
        return run;
      } catch (SQLException | RuntimeException | IOException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** One order: its row and its events in one transaction, committed or (if declined) not. */
  private static void placeOrder(
      DataSource dataSource, Outbox outbox, long run, PlannedOrder order, PrintStream out)
      throws SQLException {
    String id = orderId(run, order);
    String json =
        String.format(
            "{\"orderId\":\"%s\",\"customer\":\"%s\",\"totalCents\":%d}",
            id, order.customer(), order.totalCents());
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO demo_orders (id, run, customer, total_cents) VALUES (?, ?, ?, ?)")) {
          ps.setString(1, id);
          ps.setLong(2, run);
          ps.setString(3, order.customer());
          ps.setLong(4, order.totalCents());
          ps.executeUpdate();
        }
        List<String> events = new ArrayList<>();
        Message placed = Message.of(ORDER_PLACED, json).eventId(id + ":v1").key(id);
        outbox.add(c, placed);
        events.add(placed.eventId());
        if (order.wantsInvoice()) {
          Message invoice =
              Message.of(INVOICE_REQUESTED, json).eventId(invoiceEventId(run, order)).key(id);
          outbox.add(c, invoice);
          events.add(invoice.eventId());
        }
        if (order.declined()) {
          c.rollback();
          out.printf(
              "rolled back %s (%s): payment declined; its row and event %s go with it%n",
              id, order.customer(), String.join(", ", events));
          return;
        }
        c.commit();
        out.printf(
            "committed   %s (%s, %d.%02d) with event %s%n",
            id,
            order.customer(),
            order.totalCents() / 100,
            order.totalCents() % 100,
            String.join(" and ", events));
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  private static String orderId(long run, PlannedOrder order) {
    return "order-" + (run * 100 + order.number());
  }

  private static String invoiceEventId(long run, PlannedOrder order) {
    return "invoice-" + (run * 100 + order.number()) + ":v1";
  }

  private static boolean tableExists(Connection c, String table) throws SQLException {
    return count(c, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", table)
        > 0;
  }

  private static long count(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}

package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import javax.sql.DataSource;

/**
 * The business side of the end-to-end tests: {@code e2e_orders} (one row per committed event: the
 * ledger of what must arrive), {@code e2e_effects} (one row per application of an event's side
 * effect, deliberately without a unique key, so a second application would show), the writers that
 * add orders with their events, and the counts the tests assert.
 */
final class Ledger {
  static final String TOPIC = "order.placed";

  private final DataSource ds;
  private final Outbox outbox;

  Ledger(DataSource ds, Outbox outbox) {
    this.ds = ds;
    this.outbox = outbox;
  }

  void create() throws Exception {
    drop();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE e2e_orders (event_id VARCHAR(128) NOT NULL PRIMARY KEY, amount INTEGER)");
      s.execute(
          "CREATE TABLE e2e_effects (event_id VARCHAR(128) NOT NULL, applied_by VARCHAR(64) NOT"
              + " NULL)");
      s.execute("CREATE INDEX e2e_effects_event ON e2e_effects (event_id)");
    }
  }

  void drop() throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS e2e_effects");
      s.execute("DROP TABLE IF EXISTS e2e_orders");
    }
  }

  /** The consumer's side effect: one row per application, never deduplicated by the table. */
  static NatsConsumer.Handler effects(String appliedBy) {
    return (tx, envelope) -> {
      try (PreparedStatement ps =
          tx.prepareStatement("INSERT INTO e2e_effects (event_id, applied_by) VALUES (?, ?)")) {
        ps.setString(1, envelope.eventId());
        ps.setString(2, appliedBy);
        ps.executeUpdate();
      }
    };
  }

  /** One business transaction's writes: the order and its event, atomically. */
  void addOrder(Connection c, String id, String key) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO e2e_orders (event_id, amount) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, id.length());
      ps.executeUpdate();
    }
    assertTrue(
        outbox.add(
            c,
            Message.of(TOPIC, payload(id)).eventId(id).key(key).header("traceparent", trace(id))));
  }

  static String payload(String id) {
    return "{\"order\":\"" + id + "\"}";
  }

  static String trace(String id) {
    return "00-" + String.format("%032x", id.hashCode() & 0xffffffffL) + "-00f067aa0ba902b7-01";
  }

  /**
   * {@code total} one-order transactions {@code order-<i>} from {@code writers} threads, those
   * {@code rollsBack} picks rolled back; returns how many committed.
   */
  int write(int total, int writers, IntPredicate rollsBack, Dispatcher dispatcher)
      throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    AtomicInteger committed = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                        String id = "order-" + i;
                        if (rollsBack.test(i)) {
                          Sql.rollback(ds, c -> addOrder(c, id, id));
                        } else {
                          Sql.commit(ds, c -> addOrder(c, id, id));
                          committed.incrementAndGet();
                          dispatcher.wakeUp();
                        }
                      }
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(errors.isEmpty(), () -> "writers failed: " + errors);
    return committed.get();
  }

  /** Effects = the committed orders, each exactly once; none for anything else. */
  void assertEffectsExactlyOnce(long committed) {
    assertEquals(committed, Sql.count(ds, "SELECT COUNT(*) FROM e2e_orders"), "committed orders");
    assertEquals(committed, effects(), "effects");
    assertEquals(
        committed,
        Sql.count(ds, "SELECT COUNT(DISTINCT event_id) FROM e2e_effects"),
        "distinct effects");
    assertEquals(
        0,
        Sql.count(
            ds,
            "SELECT COUNT(*) FROM e2e_effects e WHERE NOT EXISTS"
                + " (SELECT 1 FROM e2e_orders o WHERE o.event_id = e.event_id)"),
        "effects of events that were never committed");
  }

  long effects() {
    return Sql.count(ds, "SELECT COUNT(*) FROM e2e_effects");
  }

  long distinctEffects() {
    return Sql.count(ds, "SELECT COUNT(DISTINCT event_id) FROM e2e_effects");
  }

  long orders() {
    return Sql.count(ds, "SELECT COUNT(*) FROM e2e_orders");
  }

  long outboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }

  long parkedRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2");
  }

  /** Rows {@code instance} claimed and wrote no outcome for: in flight when it died. */
  long leasedBy(String instance) {
    return Sql.count(
        ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 0 AND leased_by = ?", instance);
  }

  long inboxRows(String consumer) {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_inbox WHERE consumer = ?", consumer);
  }
}

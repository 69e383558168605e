package dev.postbox.kafka;

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
 * The end-to-end tests' business data and its ledger: {@code e2e_orders} holds one row per
 * committed event (what must arrive), {@code e2e_effects} one row per application of an event by a
 * consumer, deliberately without a unique key so that a second application would show.
 */
final class Orders {
  static final String CONSUMER = "e2e-orders";

  private final DataSource ds;
  private final Outbox outbox;
  private volatile String topic;

  Orders(DataSource ds, Outbox outbox) {
    this.ds = ds;
    this.outbox = outbox;
  }

  /** Drops and creates the two tables; events from now on go to {@code topic}. */
  void reset(String topic) throws Exception {
    this.topic = topic;
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      drop(s);
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
      drop(s);
    }
  }

  private static void drop(Statement s) throws Exception {
    s.execute("DROP TABLE IF EXISTS e2e_effects");
    s.execute("DROP TABLE IF EXISTS e2e_orders");
  }

  /** The consumer's side effect: one row per application, never deduplicated by the table. */
  static KafkaInboxConsumer.Handler effects(String appliedBy) {
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
  void add(Connection c, String id, String key) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO e2e_orders (event_id, amount) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, id.length());
      ps.executeUpdate();
    }
    assertTrue(
        outbox.add(
            c,
            Message.of(topic, "{\"order\":\"" + id + "\"}")
                .eventId(id)
                .key(key)
                .header("traceparent", trace(id))));
  }

  /** An event alone (no order) whose payload is {@code bytes} long. */
  void addEventOnly(Connection c, String id, int bytes) {
    assertTrue(outbox.add(c, Message.of(topic, "x".repeat(bytes)).eventId(id).key(id)));
  }

  static String trace(String id) {
    return "00-" + String.format("%032x", id.hashCode() & 0xffffffffL) + "-00f067aa0ba902b7-01";
  }

  /**
   * {@code total} one-order transactions ({@code order-<i>}, each its own key) from {@code writers}
   * threads; those {@code rollsBack} picks roll back. Returns how many committed.
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
                          Sql.rollback(ds, c -> add(c, id, id));
                        } else {
                          Sql.commit(ds, c -> add(c, id, id));
                          committed.incrementAndGet();
                          if (dispatcher != null) {
                            dispatcher.wakeUp();
                          }
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
  void assertEffectsExactlyOnce(int committed) {
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

  long outboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }

  long parkedRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2");
  }

  /** Rows {@code instance} has claimed and not finished: what it had in flight. */
  long leasedBy(String instance) {
    return Sql.count(
        ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 0 AND leased_by = ?", instance);
  }

  long inboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_inbox WHERE consumer = ?", CONSUMER);
  }
}

package dev.postbox.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import dev.postbox.Message;
import dev.postbox.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import javax.sql.DataSource;

/**
 * The business side of the broker end-to-end tests: {@code e2e_orders} holds one row per committed
 * event (the ledger of what must arrive), {@code e2e_effects} one row per application of an event
 * by a consumer, deliberately without a unique key so that a second application would show; the
 * business transactions that add orders with their events, and the counts the tests assert.
 */
public final class OrderLedger {
  /** The consumers' name in the inbox. */
  public static final String CONSUMER = "e2e-orders";

  /** The topic of the tests whose broker routes by something else than the topic. */
  public static final String TOPIC = "order.placed";

  private final DataSource ds;
  private final Outbox outbox;
  private volatile String topic;

  public OrderLedger(DataSource ds, Outbox outbox) {
    this.ds = ds;
    this.outbox = outbox;
  }

  /** Drops and creates the two tables; events from now on go to {@code topic}. */
  public void reset(String topic) throws Exception {
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

  public void drop() throws Exception {
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
  public static InboxHandler effects(String appliedBy) {
    return (tx, envelope) -> {
      try (PreparedStatement ps =
          tx.prepareStatement("INSERT INTO e2e_effects (event_id, applied_by) VALUES (?, ?)")) {
        ps.setString(1, envelope.eventId());
        ps.setString(2, appliedBy);
        ps.executeUpdate();
      }
    };
  }

  /** One business transaction's writes: the order and its event (keyed by its id), atomically. */
  public void add(Connection c, String id) throws Exception {
    add(c, id, id);
  }

  /** One business transaction's writes: the order and its event, atomically. */
  public void add(Connection c, String id, String key) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO e2e_orders (event_id, amount) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, id.length());
      ps.executeUpdate();
    }
    assertTrue(
        outbox.add(
            c,
            Message.of(topic, payload(id)).eventId(id).key(key).header("traceparent", trace(id))));
  }

  /** An event alone (no order) whose payload is {@code bytes} long. */
  public void addEventOnly(Connection c, String id, int bytes) {
    assertTrue(outbox.add(c, Message.of(topic, "x".repeat(bytes)).eventId(id).key(id)));
  }

  public static String payload(String id) {
    return "{\"order\":\"" + id + "\"}";
  }

  public static String trace(String id) {
    return "00-" + String.format("%032x", id.hashCode() & 0xffffffffL) + "-00f067aa0ba902b7-01";
  }

  /**
   * {@code total} one-order transactions ({@code order-<i>}, each its own key) from {@code writers}
   * threads; those {@code rollsBack} picks roll back, the others wake {@code dispatcher} (if not
   * null). Returns how many committed.
   */
  public int write(int total, int writers, IntPredicate rollsBack, Dispatcher dispatcher)
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
                          Sql.rollback(ds, c -> add(c, id));
                        } else {
                          Sql.commit(ds, c -> add(c, id));
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
  public void assertEffectsExactlyOnce(long committed) {
    assertEquals(committed, orders(), "committed orders");
    assertEquals(committed, effects(), "effects");
    assertEquals(committed, distinctEffects(), "distinct effects");
    assertEquals(
        0,
        Sql.count(
            ds,
            "SELECT COUNT(*) FROM e2e_effects e WHERE NOT EXISTS"
                + " (SELECT 1 FROM e2e_orders o WHERE o.event_id = e.event_id)"),
        "effects of events that were never committed");
  }

  public long orders() {
    return Sql.count(ds, "SELECT COUNT(*) FROM e2e_orders");
  }

  public long effects() {
    return Sql.count(ds, "SELECT COUNT(*) FROM e2e_effects");
  }

  /** Effects of {@code eventId}: 1 once applied. */
  public long effectsOf(String eventId) {
    return Sql.count(ds, "SELECT COUNT(*) FROM e2e_effects WHERE event_id = ?", eventId);
  }

  public long distinctEffects() {
    return Sql.count(ds, "SELECT COUNT(DISTINCT event_id) FROM e2e_effects");
  }

  /** The event ids of every effect, once per application. */
  public List<String> effectIds() throws Exception {
    List<String> ids = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT event_id FROM e2e_effects")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  public long outboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }

  public long parkedRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2");
  }

  /** Rows {@code instance} has claimed and not finished: what it had in flight. */
  public long leasedBy(String instance) {
    return Sql.count(
        ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 0 AND leased_by = ?", instance);
  }

  /** Inbox rows of {@link #CONSUMER}. */
  public long inboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_inbox WHERE consumer = ?", CONSUMER);
  }
}

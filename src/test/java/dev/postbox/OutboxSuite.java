package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * Base of the outbox contract suites: an outbox on the default table and a fast dispatcher (of jobs
 * too, for suites that prove the same on both tables).
 */
public abstract class OutboxSuite extends DatabaseTest {
  protected static final Duration WAIT = Duration.ofSeconds(60);

  protected final Outbox outbox = Outbox.builder().build();

  /** A fast-polling dispatcher for tests; start it with {@link #started} so it is closed after. */
  protected Dispatcher.Builder dispatcher(Transport transport) {
    return dispatcher(outbox, transport);
  }

  /** The same fast-polling dispatcher, delivering {@code o} instead of {@link #outbox}. */
  protected Dispatcher.Builder dispatcher(Outbox o, Transport transport) {
    return dispatcherOn(ds, o, transport);
  }

  /** The same fast-polling dispatcher on {@code source} (one that injects faults, say). */
  protected Dispatcher.Builder dispatcherOn(DataSource source, Transport transport) {
    return dispatcherOn(source, outbox, transport);
  }

  private Dispatcher.Builder dispatcherOn(DataSource source, Outbox o, Transport transport) {
    return Dispatcher.builder(source)
        .outbox(o, transport)
        .instanceId(nextInstanceId())
        .pollInterval(Duration.ofMillis(20))
        .backoff(Backoff.fixed(Duration.ofMillis(10)))
        .shutdownTimeout(Duration.ofSeconds(10));
  }

  /** A fast-polling dispatcher of {@code jobs}; start it with {@link #started}. */
  protected Dispatcher.Builder jobDispatcher(Jobs jobs, JobHandler... handlers) {
    return Dispatcher.builder(ds)
        .jobs(jobs, handlers)
        .instanceId(nextInstanceId())
        .pollInterval(Duration.ofMillis(20))
        .backoff(Backoff.fixed(Duration.ofMillis(10)))
        .shutdownTimeout(Duration.ofSeconds(10));
  }

  /** Adds and commits {@code messages} in one transaction. */
  protected void add(Message... messages) {
    Sql.commit(ds, c -> outbox.addAll(c, List.of(messages)));
  }

  /** Adds and commits {@code n} messages with event ids {@code prefix0 … prefix(n-1)}. */
  protected void addNumbered(String prefix, int n) {
    Message[] messages = new Message[n];
    for (int i = 0; i < n; i++) {
      messages[i] = Message.of("t", "{}").eventId(prefix + i);
    }
    add(messages);
  }

  /**
   * Adds {@code n} messages one at a time, each after the last was delivered, so that the next
   * claim carries its success; returns once every delivered row is deleted.
   */
  protected void trickle(Dispatcher d, RecordingTransport transport, String prefix, int n) {
    for (int i = 0; i < n; i++) {
      String id = prefix + i;
      add(Message.of("t", "{}").eventId(id));
      d.wakeUp();
      Await.until(WAIT, id, () -> transport.count(id) == 1);
    }
    Await.until(WAIT, "every delivered row deleted", () -> rows() == 0);
  }

  /** Parks the outbox row of {@code eventId} with {@code error}, as after its last attempt. */
  protected void park(String eventId, String error) {
    assertEquals(
        1,
        Sql.update(
            ds,
            "UPDATE postbox_outbox SET state = 2, attempts = 3, last_error = ? WHERE event_id = ?",
            error,
            eventId));
  }

  /** {@return how many outbox rows are parked} */
  protected long parked() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2");
  }

  /** Makes the outbox row of {@code eventId} fail once with {@code error}, next try in an hour. */
  protected void retryLater(String eventId, String error) {
    String later = Sql.nowPlusMillis(db);
    assertEquals(
        1,
        Sql.update(
            ds,
            "UPDATE postbox_outbox SET attempts = 1, last_error = ?, available_at = "
                + later
                + " WHERE event_id = ?",
            error,
            3_600_000,
            eventId));
  }

  /** {@return the id of the outbox row of {@code eventId}} */
  protected long idOf(String eventId) {
    return Sql.count(ds, "SELECT id FROM postbox_outbox WHERE event_id = ?", eventId);
  }

  /**
   * Starts a dispatcher, waits until it delivered every row, and {@return the event ids it
   * delivered, in order}
   */
  protected List<String> deliverEverything() {
    RecordingTransport transport = new RecordingTransport();
    started(dispatcher(transport));
    Await.until(WAIT, "every row delivered", () -> rows() == 0);
    return transport.envelopes.stream().map(Envelope::eventId).toList();
  }

  protected long rows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }
}

package dev.postbox.nats;

import dev.postbox.Envelope;
import dev.postbox.Inbox;
import dev.postbox.testing.InboxConsumerBuilder;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a durable JetStream pull consumer fed by {@link NatsTransport} and applies each event's
 * side effects at most once: the envelope checked, then {@link Inbox#claim} and the handler in one
 * JDBC transaction, commit, and only then {@code ack}. A failure rolls back and naks the message
 * (redelivered after a delay); a message that is never acked (the consumer died between commit and
 * ack) comes back after the consumer's {@code ack_wait}. Either redelivery of a committed event
 * finds the inbox row and is acked without side effects.
 *
 * <p>Each of {@code workers} virtual threads pulls with its own subscription bound to the durable
 * and handles its messages one at a time. With one worker on a consumer whose {@code
 * max_ack_pending} is 1 the stream is handled strictly in order, redeliveries included. A message
 * whose {@code Nats-Msg-Id} differs from its {@code postbox-event-id} header is terminated ({@code
 * term}: never redelivered) without reaching the handler.
 */
public final class NatsConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NatsConsumer.class);

  /**
   * What this consumer saw: {@code handled} events applied, {@code duplicates} deliveries absorbed
   * by the inbox, {@code failed} deliveries rolled back and nak'ed, {@code rejected} invalid
   * envelopes terminated, {@code redelivered} deliveries the server had delivered before.
   */
  public record Stats(long handled, long duplicates, long failed, long rejected, long redelivered) {
    public long finished() {
      return handled + duplicates + failed + rejected;
    }

    Stats plus(Stats o) {
      return new Stats(
          handled + o.handled,
          duplicates + o.duplicates,
          failed + o.failed,
          rejected + o.rejected,
          redelivered + o.redelivered);
    }
  }

  private final Builder config;
  private final LongAdder handled = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder redelivered = new LongAdder();
  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean running = true;

  private NatsConsumer(Builder config) {
    this.config = config;
  }

  /** A consumer pulling over {@code connection}, writing through {@code dataSource}. */
  public static Builder builder(Connection connection, DataSource dataSource, Inbox inbox) {
    return new Builder(connection, dataSource, inbox);
  }

  /** Binds to the durable (which must exist) and starts the workers. */
  public NatsConsumer start() throws Exception {
    JetStream js = config.connection.jetStream();
    for (int i = 0; i < config.parallelism(); i++) {
      JetStreamSubscription sub =
          js.subscribe(null, PullSubscribeOptions.bind(config.stream, config.durable));
      workers.add(
          Thread.ofVirtual()
              .name("postbox-nats-" + config.durable + "-" + i)
              .start(() -> pull(sub)));
    }
    return this;
  }

  public Stats stats() {
    return new Stats(
        handled.sum(), duplicates.sum(), failed.sum(), rejected.sum(), redelivered.sum());
  }

  /** Stops pulling and waits for the message being handled; unacked ones are redelivered. */
  @Override
  public void close() throws InterruptedException {
    running = false;
    for (Thread t : workers) {
      t.join(Duration.ofSeconds(10));
    }
  }

  private void pull(JetStreamSubscription sub) {
    while (running) {
      try {
        // messages are handed over as they arrive, within one pull request of up to batch
        Iterator<Message> messages = sub.iterate(config.batch, config.pullWait);
        while (messages.hasNext()) {
          deliver(messages.next());
        }
      } catch (RuntimeException e) {
        // disconnected (the reconnect buffer is off) or the server restarting: pull again soon
        log.debug("pulling from {} failed: {}", config.durable, e.toString());
        config.pauseAfterFailure();
      }
    }
    sub.unsubscribe();
  }

  private void deliver(Message m) {
    if (m.metaData().deliveredCount() > 1) {
      redelivered.increment();
    }
    String problem = problem(m.getHeaders());
    if (problem != null) {
      rejected.increment();
      log.warn("terminating a message on {}: {}", m.getSubject(), problem);
      m.term(); // never redelivered: it cannot get better
      return;
    }
    Envelope envelope = envelope(m);
    boolean first;
    try {
      first = config.applyOnce(envelope);
    } catch (Exception e) {
      failed.increment();
      log.debug("handling {} failed, nak: {}", envelope.eventId(), e.toString());
      m.nakWithDelay(config.failurePause()); // no hot loop while the database is down
      return;
    }
    (first ? handled : duplicates).increment();
    if (config.beforeAck.test(envelope)) {
      // if we die here the server redelivers after ack_wait; the inbox row absorbs it
      m.ack();
    }
  }

  /** Why the message is not a valid Postbox envelope, or null. */
  static String problem(Headers headers) {
    String eventId = headers == null ? null : headers.getFirst(NatsTransport.EVENT_ID);
    if (eventId == null) {
      return "no " + NatsTransport.EVENT_ID + " header";
    }
    if (eventId.isEmpty() || eventId.length() > 128) {
      return "event id is empty or longer than 128 characters";
    }
    if (!eventId.equals(headers.getFirst(NatsTransport.MSG_ID))) {
      return NatsTransport.MSG_ID + " is missing or differs from the event id";
    }
    if (headers.getFirst(NatsTransport.TOPIC) == null) {
      return "no " + NatsTransport.TOPIC + " header";
    }
    return null;
  }

  /** The envelope the transport sent, rebuilt from the NATS message. */
  static Envelope envelope(Message m) {
    Map<String, String> headers = new LinkedHashMap<>();
    m.getHeaders().entrySet().forEach(h -> headers.put(h.getKey(), h.getValue().getFirst()));
    String eventId = headers.remove(NatsTransport.EVENT_ID);
    String topic = headers.remove(NatsTransport.TOPIC);
    String key = headers.remove(NatsTransport.KEY);
    String attempt = headers.remove(NatsTransport.ATTEMPT);
    String createdAt = headers.remove(NatsTransport.CREATED_AT);
    headers.remove(NatsTransport.MSG_ID);
    return new Envelope(
        eventId,
        topic,
        key,
        new String(m.getData(), StandardCharsets.UTF_8),
        Map.copyOf(headers),
        attempt == null ? 0 : Integer.parseInt(attempt),
        createdAt == null ? null : Instant.parse(createdAt));
  }

  /** Configures a {@link NatsConsumer}. Not thread-safe. */
  public static final class Builder extends InboxConsumerBuilder<Builder> {
    private final Connection connection;
    private String stream;
    private String durable;
    private int batch = 50;
    private Duration pullWait = Duration.ofMillis(500);
    private Predicate<Envelope> beforeAck = e -> true;

    private Builder(Connection connection, DataSource dataSource, Inbox inbox) {
      super(dataSource, inbox);
      this.connection = Objects.requireNonNull(connection, "connection");
    }

    /** The stream and its durable pull consumer to bind to (both must exist). */
    public Builder durable(String stream, String durable) {
      this.stream = Objects.requireNonNull(stream, "stream");
      this.durable = Objects.requireNonNull(durable, "durable");
      return this;
    }

    /** Threads pulling in parallel, each handling one message at a time; default 1. */
    public Builder workers(int workers) {
      return parallelism("workers", workers);
    }

    /** Messages asked for per pull request, 1 to 1000; default 50. */
    public Builder batch(int batch) {
      this.batch = between("batch", batch, 1, 1000);
      return this;
    }

    /** Delay before a failed message is redelivered, and pause after a failed pull; 200 ms. */
    public Builder nakDelay(Duration delay) {
      return failurePause("nakDelay", delay);
    }

    /** Test seam: runs after the commit; false skips the ack, as if the consumer died there. */
    Builder beforeAck(Predicate<Envelope> hook) {
      this.beforeAck = Objects.requireNonNull(hook, "beforeAck");
      return this;
    }

    public NatsConsumer build() {
      Objects.requireNonNull(stream, "stream");
      requireNameAndHandler();
      return new NatsConsumer(this);
    }
  }
}

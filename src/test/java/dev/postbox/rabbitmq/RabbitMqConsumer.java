package dev.postbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import dev.postbox.Envelope;
import dev.postbox.Inbox;
import dev.postbox.testing.InboxConsumerBuilder;
import dev.postbox.testing.InboxHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a RabbitMQ queue fed by {@link RabbitMqTransport} and applies each event's side effects
 * at most once: manual acks, bounded prefetch, the envelope checked, then {@link Inbox#claim} and
 * the handler in one JDBC transaction, commit, and only then {@code basicAck}. A failure rolls back
 * and requeues the message; a redelivery of a committed event (the consumer died between commit and
 * ack, or the producer published twice) finds the inbox row and is acked without side effects.
 *
 * <p>Each channel handles its deliveries one at a time on a virtual thread; {@code channels} of
 * them consume in parallel. A message without an event id, or whose {@code messageId} differs from
 * its {@code postbox-event-id} header, is rejected without requeue (dead-lettered if the queue has
 * a dead-letter exchange) and never reaches the handler.
 */
public final class RabbitMqConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RabbitMqConsumer.class);

  /**
   * Applies one event's side effects on {@code tx}, the transaction that claimed it; throw to
   * retry. The {@link InboxHandler} of every broker's consumer, under the name the recipes use.
   */
  @FunctionalInterface
  public interface Handler extends InboxHandler {}

  /**
   * What this consumer saw: {@code handled} events applied, {@code duplicates} deliveries absorbed
   * by the inbox, {@code failed} deliveries rolled back and requeued, {@code rejected} invalid
   * envelopes dead-lettered, {@code redelivered} deliveries flagged as redelivered by the broker.
   */
  public record Stats(long handled, long duplicates, long failed, long rejected, long redelivered) {
    /** Deliveries finished (acked, requeued or rejected). */
    public long finished() {
      return handled + duplicates + failed + rejected;
    }
  }

  private final Builder config;
  private final LongAdder handled = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder redelivered = new LongAdder();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final List<Deliveries> consumers = new ArrayList<>();
  private ExecutorService executor;
  private Connection connection;

  private RabbitMqConsumer(Builder config) {
    this.config = config;
  }

  /** A consumer reading from {@code factory}'s broker, writing through {@code dataSource}. */
  public static Builder builder(ConnectionFactory factory, DataSource dataSource, Inbox inbox) {
    return new Builder(factory, dataSource, inbox);
  }

  /** Connects and starts consuming; the queue must exist. */
  public RabbitMqConsumer start() throws IOException, java.util.concurrent.TimeoutException {
    executor =
        Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("postbox-consumer-" + config.queue + "-", 0).factory());
    connection = config.factory.newConnection(executor, "postbox-consumer-" + config.inboxName());
    for (int i = 0; i < config.parallelism(); i++) {
      Channel channel = connection.createChannel();
      channel.basicQos(config.prefetch);
      Deliveries deliveries = new Deliveries(channel);
      channel.basicConsume(config.queue, false, deliveries);
      consumers.add(deliveries);
    }
    return this;
  }

  public Stats stats() {
    return new Stats(
        handled.sum(), duplicates.sum(), failed.sum(), rejected.sum(), redelivered.sum());
  }

  /**
   * Stops consuming, lets deliveries already handed to this consumer finish (up to 10 s), then
   * closes the connection; whatever is still unacknowledged goes back to the queue.
   */
  @Override
  public void close() throws IOException {
    for (Deliveries deliveries : consumers) {
      try {
        for (String tag : List.copyOf(deliveries.tags)) {
          deliveries.getChannel().basicCancel(tag);
        }
      } catch (IOException | RuntimeException e) {
        log.debug("cancelling a consumer of {} failed: {}", config.queue, e.toString());
      }
    }
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (inFlight.get() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      if (connection != null && connection.isOpen()) {
        connection.close(5_000);
      }
      if (executor != null) {
        executor.shutdown();
        executor.awaitTermination(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void deliver(
      Channel channel,
      com.rabbitmq.client.Envelope amqp,
      AMQP.BasicProperties properties,
      byte[] body)
      throws IOException {
    long tag = amqp.getDeliveryTag();
    if (amqp.isRedeliver()) {
      redelivered.increment();
    }
    String problem = problem(properties);
    if (problem != null) {
      rejected.increment();
      log.warn("rejecting delivery {} from {}: {}", tag, config.queue, problem);
      channel.basicReject(tag, false); // dead-lettered, never requeued: it cannot get better
      return;
    }
    Envelope envelope = envelope(properties, body);
    boolean first;
    try {
      first = config.applyOnce(envelope);
    } catch (Exception e) {
      failed.increment();
      log.debug("handling {} failed, requeueing: {}", envelope.eventId(), e.toString());
      config.pauseAfterFailure();
      channel.basicNack(tag, false, true);
      return;
    }
    (first ? handled : duplicates).increment();
    config.beforeAck.accept(envelope);
    // if we die here the broker redelivers, and the inbox row committed above absorbs it
    channel.basicAck(tag, false);
  }

  /** Why the message is not a valid Postbox envelope, or null. */
  static String problem(AMQP.BasicProperties properties) {
    String messageId = properties.getMessageId();
    Object header =
        properties.getHeaders() == null
            ? null
            : properties.getHeaders().get(RabbitMqTransport.EVENT_ID);
    if (header == null) {
      return "no " + RabbitMqTransport.EVENT_ID + " header";
    }
    String eventId = header.toString();
    if (eventId.isEmpty()
        || eventId.length() > 128
        || eventId.chars().anyMatch(Character::isISOControl)) {
      return "event id is empty, longer than 128 characters or has control characters";
    }
    if (!eventId.equals(messageId)) {
      return "messageId " + (messageId == null ? "is missing" : "differs from the event id");
    }
    if (properties.getType() == null || properties.getType().isEmpty()) {
      return "no type (topic)";
    }
    return null;
  }

  /** The envelope the transport sent, rebuilt from the AMQP message. */
  static Envelope envelope(AMQP.BasicProperties properties, byte[] body) {
    Map<String, String> headers = new LinkedHashMap<>();
    properties.getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
    String key = headers.remove(RabbitMqTransport.KEY);
    String attempt = headers.remove(RabbitMqTransport.ATTEMPT);
    headers.remove(RabbitMqTransport.EVENT_ID);
    return new Envelope(
        properties.getMessageId(),
        properties.getType(),
        key,
        new String(body, StandardCharsets.UTF_8),
        Map.copyOf(headers),
        attempt == null ? 0 : Integer.parseInt(attempt),
        properties.getTimestamp() == null ? null : properties.getTimestamp().toInstant());
  }

  /** One channel's deliveries, handled one at a time in arrival order. */
  private final class Deliveries extends DefaultConsumer {
    final List<String> tags = new java.util.concurrent.CopyOnWriteArrayList<>();

    Deliveries(Channel channel) {
      super(channel);
    }

    @Override
    public void handleConsumeOk(String consumerTag) {
      tags.add(consumerTag);
    }

    @Override
    public void handleCancelOk(String consumerTag) {
      tags.remove(consumerTag);
    }

    @Override
    public void handleDelivery(
        String consumerTag,
        com.rabbitmq.client.Envelope amqp,
        AMQP.BasicProperties properties,
        byte[] body) {
      inFlight.incrementAndGet();
      try {
        deliver(getChannel(), amqp, properties, body);
      } catch (IOException | RuntimeException e) {
        // the ack or nack did not reach the broker (connection lost): it will redeliver, and the
        // inbox absorbs whatever was committed
        log.debug("acknowledging delivery on {} failed: {}", config.queue, e.toString());
      } finally {
        inFlight.decrementAndGet();
      }
    }
  }

  /** Configures a {@link RabbitMqConsumer}. Not thread-safe. */
  public static final class Builder extends InboxConsumerBuilder<Builder> {
    private final ConnectionFactory factory;
    private String queue;
    private int prefetch = 20;
    private Consumer<Envelope> beforeAck = e -> {};

    private Builder(ConnectionFactory factory, DataSource dataSource, Inbox inbox) {
      super(dataSource, inbox);
      this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** The queue to consume. */
    public Builder queue(String queue) {
      this.queue = Objects.requireNonNull(queue, "queue");
      return this;
    }

    /** Unacknowledged deliveries per channel, 1 to 65535; default 20. */
    public Builder prefetch(int prefetch) {
      this.prefetch = between("prefetch", prefetch, 1, 65_535);
      return this;
    }

    /** Channels consuming in parallel, each handling one delivery at a time; default 1. */
    public Builder channels(int channels) {
      return parallelism("channels", channels);
    }

    /** Pause before a failed delivery is requeued; default 200 ms. */
    public Builder requeueDelay(Duration delay) {
      return failurePause("requeueDelay", delay);
    }

    /**
     * Test seam: runs after the commit and before the ack (a crash here is what the inbox is for).
     */
    Builder beforeAck(Consumer<Envelope> hook) {
      this.beforeAck = Objects.requireNonNull(hook, "beforeAck");
      return this;
    }

    public RabbitMqConsumer build() {
      Objects.requireNonNull(queue, "queue");
      requireNameAndHandler();
      return new RabbitMqConsumer(this);
    }
  }
}

package dev.postbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Return;
import dev.postbox.BatchSendException;
import dev.postbox.BatchTransport;
import dev.postbox.Envelope;
import dev.postbox.RejectedMessageException;
import dev.postbox.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * A {@link Transport} that publishes outbox messages to RabbitMQ: persistent messages, publisher
 * confirms (a send returns only once the broker confirmed it), {@code messageId} = event id, the
 * topic as AMQP {@code type}, the envelope's headers plus {@code postbox-event-id}, {@code
 * postbox-attempt} and {@code postbox-key}, and {@code mandatory} publishing, so a message no queue
 * takes fails with a {@link RejectedMessageException} (and is parked) instead of vanishing.
 *
 * <p>Thread-safe: the dispatcher calls {@link #send} from many virtual threads at once. One
 * connection, a few channels in confirm mode; a channel's lock is held only while publishing, the
 * confirm is awaited outside it on a future (so many sends share a channel and never pin a carrier
 * thread the way {@code waitForConfirms}' {@code Object.wait} does on JDK 21). When the connection
 * is lost, every send fails at once, and the next send reconnects: the dispatcher sees an outage,
 * backs off and probes. No send waits longer than the timeouts.
 */
public final class RabbitMqTransport implements Transport, AutoCloseable {
  static final String EVENT_ID = "postbox-event-id";
  static final String ATTEMPT = "postbox-attempt";
  static final String KEY = "postbox-key";

  private final ConnectionFactory factory;
  private final String exchange;
  private final Function<Envelope, String> routingKey;
  private final Duration confirmTimeout;
  private final Slot[] slots;
  private final AtomicInteger next = new AtomicInteger();
  private final ReentrantLock connecting = new ReentrantLock();
  private volatile Connection connection;
  private volatile boolean blocked;
  private volatile boolean closed;

  private RabbitMqTransport(Builder b) {
    // our own copy without automatic recovery: we reconnect on the next send instead, so a send
    // during an outage fails fast rather than waiting for a recovery that may never come
    this.factory = b.factory.clone();
    this.factory.setAutomaticRecoveryEnabled(false);
    // connecting and channel.open / confirm.select are bounded like a confirm: no send hangs
    int timeout = (int) b.confirmTimeout.toMillis();
    this.factory.setChannelRpcTimeout(timeout);
    if (factory.getConnectionTimeout() == 0 || factory.getConnectionTimeout() > timeout) {
      this.factory.setConnectionTimeout(timeout);
    }
    if (factory.getHandshakeTimeout() > timeout) {
      this.factory.setHandshakeTimeout(timeout);
    }
    this.exchange = b.exchange;
    this.routingKey = b.routingKey;
    this.confirmTimeout = b.confirmTimeout;
    this.slots = new Slot[b.channels];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = new Slot();
    }
  }

  /**
   * Publishes to {@code factory}'s broker; by default to the default exchange with the topic as
   * routing key (i.e. to the queue named like the topic).
   */
  public static Builder builder(ConnectionFactory factory) {
    return new Builder(factory);
  }

  /**
   * This transport taking whole claims: a batch is published on one channel in one go, then every
   * confirm is awaited; only the envelopes that were not confirmed (returned, nacked, timed out)
   * fail, by a {@link BatchSendException} naming them.
   */
  public BatchTransport batching() {
    return new BatchTransport() {
      @Override
      public void send(Envelope envelope) throws Exception {
        RabbitMqTransport.this.send(envelope);
      }

      @Override
      public void sendBatch(List<Envelope> batch) throws Exception {
        publishAll(batch);
      }
    };
  }

  private void publishAll(List<Envelope> batch) throws Exception {
    List<Pending> published = publish(batch);
    BatchSendException failures = new BatchSendException();
    long deadline = System.nanoTime() + confirmTimeout.toNanos();
    for (int i = 0; i < batch.size(); i++) {
      Exception failed = awaitConfirm(published.get(i), deadline);
      if (failed != null) {
        failures.fail(batch.get(i), failed);
      }
    }
    if (!failures.failures().isEmpty()) {
      throw failures;
    }
  }

  /** Publishes {@code envelopes} on the next channel; a confirm to await for each. */
  private List<Pending> publish(List<Envelope> envelopes) throws Exception {
    checkOpen();
    return slots[Math.floorMod(next.getAndIncrement(), slots.length)].publishAll(envelopes);
  }

  /**
   * Waits for {@code pending}'s confirm until {@code deadline}; null if confirmed, else why not.
   */
  private Exception awaitConfirm(Pending pending, long deadline) throws InterruptedException {
    try {
      pending.confirmed.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause() instanceof Exception cause ? cause : e;
    } catch (TimeoutException e) {
      pending.channel.pending.remove(pending.seq);
      return new TimeoutException(
          "RabbitMQ did not confirm " + pending.eventId + " within " + confirmTimeout);
    }
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IllegalStateException("RabbitMQ transport is closed");
    }
    if (blocked) {
      throw new IOException("RabbitMQ blocked publishers (resource alarm); retry later");
    }
  }

  @Override
  public void send(Envelope envelope) throws Exception {
    Pending pending = publish(List.of(envelope)).get(0);
    Exception failed = awaitConfirm(pending, System.nanoTime() + confirmTimeout.toNanos());
    if (failed != null) {
      throw failed;
    }
  }

  /** The AMQP properties of {@code envelope}: what a consumer validates and dedupes on. */
  static AMQP.BasicProperties properties(Envelope envelope) {
    Map<String, Object> headers = new LinkedHashMap<>(envelope.headers());
    headers.put(EVENT_ID, envelope.eventId());
    headers.put(ATTEMPT, envelope.attempt());
    if (envelope.key() != null) {
      headers.put(KEY, envelope.key());
    }
    return new AMQP.BasicProperties.Builder()
        .messageId(envelope.eventId())
        .type(envelope.topic())
        .contentType("application/json")
        .contentEncoding("utf-8")
        .deliveryMode(2) // persistent
        .timestamp(envelope.createdAt() == null ? null : Date.from(envelope.createdAt()))
        .headers(headers)
        .build();
  }

  @Override
  public void close() {
    closed = true;
    connecting.lock();
    try {
      Connection c = connection;
      connection = null;
      if (c != null && c.isOpen()) {
        try {
          c.close(5_000);
        } catch (IOException | RuntimeException ignored) {
          // closing a broken connection
        }
      }
    } finally {
      connecting.unlock();
    }
  }

  /** The open connection, or a new one if there is none or it was lost. */
  private Connection connection() throws IOException, TimeoutException {
    Connection c = connection;
    if (c != null && c.isOpen()) {
      return c;
    }
    connecting.lock();
    try {
      c = connection;
      if (c == null || !c.isOpen()) {
        if (closed) {
          throw new IllegalStateException("RabbitMQ transport is closed");
        }
        if (c != null) {
          c.abort(1_000);
        }
        blocked = false;
        c = factory.newConnection("postbox-transport");
        c.addBlockedListener(reason -> blocked = true, () -> blocked = false);
        connection = c;
      }
      return c;
    } finally {
      connecting.unlock();
    }
  }

  /** One publish awaiting its confirm. */
  private static final class Pending {
    final Confirming channel;
    final long seq;
    final String eventId;
    final CompletableFuture<Void> confirmed = new CompletableFuture<>();
    volatile String returned;

    Pending(Confirming channel, long seq, String eventId) {
      this.channel = channel;
      this.seq = seq;
      this.eventId = eventId;
    }
  }

  /** One of the channels; its lock is held only while publishing, never while confirming. */
  private final class Slot {
    private final ReentrantLock lock = new ReentrantLock();
    private Confirming current;

    /**
     * Publishes every envelope under one hold of the lock; an envelope that could not be published
     * gets a pending confirm that has already failed, as does every one after it.
     */
    List<Pending> publishAll(List<Envelope> batch) throws Exception {
      if (!lock.tryLock(confirmTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new TimeoutException("no RabbitMQ channel free within " + confirmTimeout);
      }
      List<Pending> published = new ArrayList<>(batch.size());
      try {
        if (current == null || !current.channel.isOpen()) {
          current = new Confirming(connection().createChannel());
        }
        Exception broken = null;
        for (Envelope e : batch) {
          if (broken == null) {
            try {
              published.add(
                  current.publish(
                      e.eventId(),
                      routingKey.apply(e),
                      properties(e),
                      e.payload().getBytes(StandardCharsets.UTF_8)));
              continue;
            } catch (IOException | RuntimeException x) {
              broken = x;
            }
          }
          Pending failed = new Pending(current, -1, e.eventId());
          failed.confirmed.completeExceptionally(broken);
          published.add(failed);
        }
        return published;
      } finally {
        lock.unlock();
      }
    }
  }

  /** A channel in confirm mode and its publishes awaiting a confirm, by sequence number. */
  private final class Confirming {
    final Channel channel;
    // written by publishers under their slot's lock, completed by the connection's reader thread
    final ConcurrentSkipListMap<Long, Pending> pending = new ConcurrentSkipListMap<>();

    Confirming(Channel channel) throws IOException {
      this.channel = channel;
      channel.confirmSelect();
      channel.addConfirmListener((seq, multiple) -> confirm(seq, multiple, null), this::nacked);
      channel.addReturnListener(this::returned);
      channel.addShutdownListener(
          cause ->
              failAll(new IOException("RabbitMQ channel closed: " + cause.getMessage(), cause)));
    }

    Pending publish(String eventId, String key, AMQP.BasicProperties properties, byte[] body)
        throws IOException {
      long seq = channel.getNextPublishSeqNo();
      Pending p = new Pending(this, seq, eventId);
      pending.put(seq, p); // before publishing: the confirm may arrive before basicPublish returns
      try {
        channel.basicPublish(exchange, key, true, properties, body);
      } catch (IOException | RuntimeException e) {
        pending.remove(seq);
        throw e;
      }
      if (!channel.isOpen()) {
        failAll(new IOException("RabbitMQ channel closed before the broker confirmed"));
      }
      return p;
    }

    private void nacked(long seq, boolean multiple) {
      confirm(seq, multiple, new IOException("RabbitMQ nacked the message (internal error)"));
    }

    /** A mandatory message no queue took: returned just before its confirm. */
    private void returned(Return r) {
      String messageId = r.getProperties().getMessageId();
      for (Pending p : pending.values()) {
        if (p.returned == null && Objects.equals(p.eventId, messageId)) {
          p.returned =
              "no queue took it: exchange '"
                  + r.getExchange()
                  + "', routing key '"
                  + r.getRoutingKey()
                  + "' ("
                  + r.getReplyCode()
                  + " "
                  + r.getReplyText()
                  + ")";
          return;
        }
      }
    }

    private void confirm(long seq, boolean multiple, Exception nack) {
      Map<Long, Pending> done =
          multiple ? pending.headMap(seq, true) : pending.subMap(seq, true, seq, true);
      for (Pending p : done.values()) {
        if (nack != null) {
          p.confirmed.completeExceptionally(nack);
        } else if (p.returned != null) {
          p.confirmed.completeExceptionally(new RejectedMessageException(p.returned));
        } else {
          p.confirmed.complete(null);
        }
      }
      done.clear();
    }

    private void failAll(Exception cause) {
      for (Pending p : pending.values()) {
        p.confirmed.completeExceptionally(cause);
      }
      pending.clear();
    }
  }

  /** Configures a {@link RabbitMqTransport}. Not thread-safe. */
  public static final class Builder {
    private final ConnectionFactory factory;
    private String exchange = "";
    private Function<Envelope, String> routingKey = Envelope::topic;
    private int channels = 4;
    private Duration confirmTimeout = Duration.ofSeconds(10);

    private Builder(ConnectionFactory factory) {
      this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** The exchange to publish to; default {@code ""}, the default exchange (routes by queue). */
    public Builder exchange(String exchange) {
      this.exchange = Objects.requireNonNull(exchange, "exchange");
      return this;
    }

    /** The routing key of each message; default its topic. */
    public Builder routingKey(Function<Envelope, String> routingKey) {
      this.routingKey = Objects.requireNonNull(routingKey, "routingKey");
      return this;
    }

    /** Channels publishing in parallel over the one connection; default 4. */
    public Builder channels(int channels) {
      if (channels < 1 || channels > 64) {
        throw new IllegalArgumentException("channels must be between 1 and 64 but was " + channels);
      }
      this.channels = channels;
      return this;
    }

    /** How long a send waits for the broker's confirm (and for a channel); default 10 s. */
    public Builder confirmTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("confirmTimeout must be positive but was " + timeout);
      }
      this.confirmTimeout = timeout;
      return this;
    }

    public RabbitMqTransport build() {
      return new RabbitMqTransport(this);
    }
  }
}

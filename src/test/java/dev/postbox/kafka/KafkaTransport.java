package dev.postbox.kafka;

import dev.postbox.BatchSendException;
import dev.postbox.BatchTransport;
import dev.postbox.Envelope;
import dev.postbox.PostboxException;
import dev.postbox.RejectedMessageException;
import dev.postbox.Transport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A {@link Transport} that produces outbox messages to Kafka with one idempotent {@link
 * KafkaProducer}: {@code acks=all}, {@code enable.idempotence=true}, at most 5 requests in flight
 * per connection (so the producer's own retries never reorder a partition). The envelope's topic is
 * the Kafka topic and its key the record key (which picks the partition); the event id goes in the
 * header {@code postbox-event-id}, the attempt in {@code postbox-attempt}, and the envelope's
 * headers as they are. {@link #send} returns once every in-sync replica has the record; {@link
 * #sendBatch} hands a whole claim to the producer at once, one record of a key at a time, and fails
 * only the records that were not acknowledged.
 *
 * <p>Thread-safe (the producer is): the dispatcher calls it from many virtual threads at once.
 * Every wait is bounded: {@code max.block.ms} for metadata inside {@code send()}, {@code
 * delivery.timeout.ms} for the producer's retries, so during a broker outage sends fail within
 * seconds and the dispatcher sees the outage, backs off and probes. A record the broker refuses for
 * what it is (too large, invalid topic, not authorised, not serializable) fails with a {@link
 * RejectedMessageException}: counted against that message only and parked after its last attempt.
 */
public final class KafkaTransport implements BatchTransport, AutoCloseable {
  static final String EVENT_ID = "postbox-event-id";
  static final String ATTEMPT = "postbox-attempt";

  private final KafkaProducer<String, String> producer;
  private final Duration ackTimeout;

  private KafkaTransport(Builder b) {
    this.producer = new KafkaProducer<>(b.properties);
    long delivery = millis(b.properties.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG));
    long block = millis(b.properties.get(ProducerConfig.MAX_BLOCK_MS_CONFIG));
    // the producer fails a record by itself after max.block.ms + delivery.timeout.ms at most
    this.ackTimeout = Duration.ofMillis(block + delivery + 5_000);
  }

  /** A transport producing to {@code bootstrapServers} with the settings above. */
  public static Builder builder(String bootstrapServers) {
    return new Builder(bootstrapServers);
  }

  /** The Kafka record for {@code envelope}: topic, key, payload, event id, attempt and headers. */
  static ProducerRecord<String, String> record(Envelope envelope) {
    ProducerRecord<String, String> record =
        new ProducerRecord<>(envelope.topic(), envelope.key(), envelope.payload());
    envelope.headers().forEach((name, value) -> record.headers().add(name, utf8(value)));
    record.headers().add(EVENT_ID, utf8(envelope.eventId()));
    record.headers().add(ATTEMPT, utf8(Integer.toString(envelope.attempt())));
    return record;
  }

  @Override
  public void send(Envelope envelope) throws Exception {
    Future<RecordMetadata> ack;
    try {
      ack = producer.send(record(envelope));
    } catch (SerializationException e) {
      throw rejected(e);
    }
    try {
      ack.get(ackTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    }
  }

  /**
   * Hands the claim's records to the producer in waves and waits for each wave's acknowledgements:
   * a wave holds the first unsent record of every key (and every record without a key), so a claim
   * of distinct keys travels as one wave in a few requests instead of one round trip per record. A
   * later record of a key waits for the wave before it, and is not sent at all once an earlier one
   * of its key failed: pipelining two records of a key would let the second be written while the
   * first expired in the producer's buffer (a broker outage), inverting them. Fails only the
   * records not acknowledged; when none was and none was refused, the batch fails as a whole (an
   * outage).
   */
  @Override
  public void sendBatch(List<Envelope> batch) throws Exception {
    Map<Integer, Exception> failed = new HashMap<>();
    Set<String> failedKeys = new HashSet<>();
    List<Integer> pending = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      pending.add(i);
    }
    Exception firstCause = null;
    int acknowledged = 0;
    while (!pending.isEmpty()) {
      List<Integer> wave = new ArrayList<>();
      List<Integer> later = new ArrayList<>();
      Set<String> keysInWave = new HashSet<>();
      for (int i : pending) {
        String key = batch.get(i).key();
        if (key != null && failedKeys.contains(key)) {
          failed.put(i, new PostboxException("not sent: an earlier message of its key failed"));
        } else if (key == null || keysInWave.add(key)) {
          wave.add(i);
        } else {
          later.add(i);
        }
      }
      Map<Integer, Exception> waveFailures = sendWave(batch, wave, later);
      acknowledged += wave.size() - waveFailures.size();
      for (Map.Entry<Integer, Exception> f : waveFailures.entrySet()) {
        firstCause = firstCause == null ? f.getValue() : firstCause;
        failed.put(f.getKey(), f.getValue());
        if (batch.get(f.getKey()).key() != null) {
          failedKeys.add(batch.get(f.getKey()).key());
        }
      }
      pending = later;
    }
    if (failed.isEmpty()) {
      return;
    }
    boolean noneRefused =
        failed.values().stream().noneMatch(RejectedMessageException.class::isInstance);
    if (acknowledged == 0 && noneRefused) {
      throw firstCause; // nothing got through: the broker is away, not one message
    }
    BatchSendException failures = new BatchSendException();
    failed.forEach((i, cause) -> failures.fail(batch.get(i), cause));
    throw failures;
  }

  /**
   * Sends the records {@code wave} names and waits for their acknowledgements; returns the failures
   * by index. Interrupted (the dispatcher is closing), it throws a {@link BatchSendException}
   * naming this wave's unacknowledged records and those of {@code later}.
   */
  private Map<Integer, Exception> sendWave(
      List<Envelope> batch, List<Integer> wave, List<Integer> later) throws BatchSendException {
    Map<Integer, Exception> failed = new HashMap<>();
    Map<Integer, Future<RecordMetadata>> acks = new HashMap<>();
    for (int i : wave) {
      try {
        acks.put(i, producer.send(record(batch.get(i))));
      } catch (SerializationException e) {
        failed.put(i, rejected(e));
      }
    }
    long deadline = System.nanoTime() + ackTimeout.toNanos();
    try {
      for (Map.Entry<Integer, Future<RecordMetadata>> ack : acks.entrySet()) {
        try {
          ack.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
          failed.put(ack.getKey(), failure(e.getCause()));
        } catch (TimeoutException e) {
          failed.put(ack.getKey(), e);
        }
      }
    } catch (InterruptedException e) {
      // closing: the records not yet acknowledged are handed back, those acknowledged count
      Thread.currentThread().interrupt();
      BatchSendException handedBack = new BatchSendException();
      for (int i : wave) {
        if (!acks.containsKey(i) || acks.get(i).state() != Future.State.SUCCESS) {
          handedBack.fail(batch.get(i), e);
        }
      }
      later.forEach(i -> handedBack.fail(batch.get(i), e));
      throw handedBack;
    }
    return failed;
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }

  /** The producer's error as the dispatcher should see it: refused, or worth a retry. */
  private static Exception failure(Throwable cause) {
    if (cause instanceof RecordTooLargeException
        || cause instanceof RecordBatchTooLargeException
        || cause instanceof InvalidTopicException
        || cause instanceof InvalidRecordException
        || cause instanceof TopicAuthorizationException
        || cause instanceof SerializationException) {
      return rejected(cause);
    }
    // timeouts, lost connections, leader changes: the broker side, retried and probed
    return cause instanceof Exception e ? e : new ExecutionException(cause);
  }

  private static RejectedMessageException rejected(Throwable cause) {
    // the broker is fine, this record can never be written: count the attempt, park it
    return new RejectedMessageException(cause.getClass().getSimpleName(), cause);
  }

  private static long millis(Object setting) {
    return Long.parseLong(String.valueOf(setting));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Configures a {@link KafkaTransport}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, Object> properties = new HashMap<>();

    private Builder(String bootstrapServers) {
      properties.put(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
          Objects.requireNonNull(bootstrapServers, "bootstrapServers"));
      properties.put(ProducerConfig.ACKS_CONFIG, "all");
      properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
      properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
      // bounded waits: an outage shows as failed sends within seconds, not minutes
      properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
      properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
      properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
      properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      properties.put(
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    }

    /**
     * Sets any producer setting ({@link ProducerConfig}), replacing the default. Keep {@code
     * acks=all} and idempotence for at-least-once without reordering; {@code delivery.timeout.ms}
     * must stay at least {@code linger.ms + request.timeout.ms}.
     */
    public Builder property(String name, Object value) {
      properties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, name));
      return this;
    }

    public KafkaTransport build() {
      return new KafkaTransport(this);
    }
  }
}

package dev.postbox.kafka;

import dev.postbox.Envelope;
import dev.postbox.RejectedMessageException;
import dev.postbox.Transport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The README's Kafka recipe: a {@link Transport} on one idempotent {@link KafkaProducer} (which is
 * thread-safe), {@code acks=all}, the key as the Kafka key (it picks the partition). The messages
 * of a key reach their partition in order when the outbox is ordered by key (the default: one send
 * of a key at a time) and the producer is idempotent with {@code
 * max.in.flight.requests.per.connection} at most 5, so its own retries cannot reorder them; the
 * event id and headers go as record headers. A send returns once the record is acknowledged by all
 * in-sync replicas. Compiled by the build, not run: no Kafka server runs here.
 */
public final class KafkaTransportRecipe implements Transport, AutoCloseable {
  static final String EVENT_ID = "postbox-event-id";

  private final KafkaProducer<String, String> producer;
  private final Duration timeout;

  public KafkaTransportRecipe(String bootstrapServers) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5); // idempotent: order kept
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000); // metadata wait inside send()
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000); // the producer's own retries
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    this.producer = new KafkaProducer<>(p);
    this.timeout = Duration.ofSeconds(40);
  }

  /** The Kafka record for {@code envelope}: topic, key, payload, event id and headers. */
  static ProducerRecord<String, String> record(Envelope envelope) {
    ProducerRecord<String, String> record =
        new ProducerRecord<>(envelope.topic(), envelope.key(), envelope.payload());
    record.headers().add(EVENT_ID, envelope.eventId().getBytes(StandardCharsets.UTF_8));
    envelope
        .headers()
        .forEach(
            (name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
    return record;
  }

  @Override
  public void send(Envelope envelope) throws Exception {
    try {
      producer.send(record(envelope)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RecordTooLargeException
          || cause instanceof InvalidTopicException
          || cause instanceof AuthorizationException) {
        // this message can never be sent; the broker is fine: count the attempt, park it
        throw new RejectedMessageException(cause.getMessage(), cause);
      }
      throw cause instanceof Exception ex ? ex : e; // outage-like: retried, probed
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}

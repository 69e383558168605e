package dev.postbox.kafka;

import dev.postbox.Envelope;
import dev.postbox.Inbox;
import dev.postbox.testing.InboxConsumerBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a Kafka topic fed by {@link KafkaTransport} and applies each event's side effects at
 * most once: per record, {@link Inbox#claim} and the handler in one JDBC transaction, commit, and
 * only after that the record's offset is committed to Kafka ({@code enable.auto.commit=false}). A
 * failed record is rolled back and read again from its offset after a pause, so a partition never
 * skips one; a record seen again (the consumer died between the two commits, a rebalance, the
 * producer wrote it twice) finds the inbox row and is passed over without side effects.
 *
 * <p>Each of {@code threads} platform threads owns one {@link KafkaConsumer} of the group (a
 * consumer is not thread-safe) and handles its records one at a time in partition order, which
 * keeps per-key order. A record without a valid {@code postbox-event-id} header is counted as
 * rejected and skipped (Kafka has no dead-letter queue of its own) and never reaches the handler.
 */
public final class KafkaInboxConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaInboxConsumer.class);

  /**
   * What this consumer saw: {@code handled} events applied, {@code duplicates} records absorbed by
   * the inbox, {@code failed} attempts rolled back and read again, {@code rejected} invalid
   * records.
   */
  public record Stats(long handled, long duplicates, long failed, long rejected) {
    /** Records done with (applied, absorbed or rejected). */
    public long finished() {
      return handled + duplicates + rejected;
    }
  }

  private final Builder config;
  private final LongAdder handled = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running = true;

  private KafkaInboxConsumer(Builder config) {
    this.config = config;
  }

  /** A consumer reading from {@code bootstrapServers}, writing through {@code dataSource}. */
  public static Builder builder(String bootstrapServers, DataSource dataSource, Inbox inbox) {
    return new Builder(bootstrapServers, dataSource, inbox);
  }

  /** Subscribes and starts the threads. */
  public KafkaInboxConsumer start() {
    for (int i = 0; i < config.parallelism(); i++) {
      KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config.properties());
      threads.add(
          Thread.ofPlatform()
              .name("postbox-kafka-consumer-" + config.inboxName() + "-" + i)
              .start(() -> run(consumer)));
    }
    return this;
  }

  public Stats stats() {
    return new Stats(handled.sum(), duplicates.sum(), failed.sum(), rejected.sum());
  }

  /** Stops polling after the current poll, commits the offsets of what was handled, leaves. */
  @Override
  public void close() {
    running = false;
    try {
      for (Thread t : threads) {
        t.join(Duration.ofSeconds(30));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run(KafkaConsumer<String, String> consumer) {
    Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>(); // handled, not yet committed
    try (consumer) {
      consumer.subscribe(List.of(config.topic), new CommitOnRevoke(consumer, done));
      while (running) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        for (TopicPartition partition : records.partitions()) {
          for (ConsumerRecord<String, String> record : records.records(partition)) {
            if (!handle(record)) {
              // read it again next poll: nothing after it in this partition may go first
              consumer.seek(partition, record.offset());
              config.pauseAfterFailure();
              break;
            }
            done.put(partition, new OffsetAndMetadata(record.offset() + 1));
          }
        }
        commit(consumer, done);
      }
    }
  }

  /** Applies the record in one transaction; false if it must be read again. */
  private boolean handle(ConsumerRecord<String, String> record) {
    String eventId = header(record, KafkaTransport.EVENT_ID);
    if (eventId == null
        || eventId.isEmpty()
        || eventId.length() > 128
        || eventId.chars().anyMatch(Character::isISOControl)) {
      rejected.increment();
      log.warn(
          "skipping record {}-{}@{}: no valid {} header",
          record.topic(),
          record.partition(),
          record.offset(),
          KafkaTransport.EVENT_ID);
      return true;
    }
    Envelope envelope = envelope(record, eventId);
    try {
      (config.applyOnce(envelope) ? handled : duplicates).increment();
      return true;
    } catch (Exception e) {
      failed.increment();
      log.debug("handling {} failed, reading it again: {}", eventId, e.toString());
      return false;
    }
  }

  /** Commits the handled offsets; if the broker is away they stay pending for the next try. */
  private static void commit(
      KafkaConsumer<String, String> consumer, Map<TopicPartition, OffsetAndMetadata> done) {
    if (done.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(done);
      done.clear();
    } catch (RuntimeException e) {
      // redelivered after a rebalance at worst, and the inbox absorbs it
      log.debug("offset commit failed, kept for the next one: {}", e.toString());
    }
  }

  /** The envelope the transport sent, rebuilt from the record. */
  static Envelope envelope(ConsumerRecord<String, String> record, String eventId) {
    Map<String, String> headers = new HashMap<>();
    for (Header h : record.headers()) {
      headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
    }
    headers.remove(KafkaTransport.EVENT_ID);
    String attempt = headers.remove(KafkaTransport.ATTEMPT);
    return new Envelope(
        eventId,
        record.topic(),
        record.key(),
        record.value(),
        Map.copyOf(headers),
        attempt == null ? 0 : Integer.parseInt(attempt),
        Instant.ofEpochMilli(record.timestamp()));
  }

  private static String header(ConsumerRecord<String, String> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** Before partitions move to another member, commits what was handled from them. */
  private static final class CommitOnRevoke implements ConsumerRebalanceListener {
    private final KafkaConsumer<String, String> consumer;
    private final Map<TopicPartition, OffsetAndMetadata> done;

    CommitOnRevoke(
        KafkaConsumer<String, String> consumer, Map<TopicPartition, OffsetAndMetadata> done) {
      this.consumer = consumer;
      this.done = done;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      commit(consumer, done);
      done.keySet().removeAll(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      done.keySet().removeAll(partitions); // another member owns them already
    }
  }

  /** Configures a {@link KafkaInboxConsumer}. Not thread-safe. */
  public static final class Builder extends InboxConsumerBuilder<Builder> {
    private final String bootstrapServers;
    private String topic;
    private String group;

    private Builder(String bootstrapServers, DataSource dataSource, Inbox inbox) {
      super(dataSource, inbox);
      this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    }

    public Builder topic(String topic) {
      this.topic = Objects.requireNonNull(topic, "topic");
      return this;
    }

    /** The Kafka consumer group; default the inbox name. */
    public Builder group(String group) {
      this.group = Objects.requireNonNull(group, "group");
      return this;
    }

    /** Consumers of the group in this instance, one thread each, 1 to 64; default 1. */
    public Builder threads(int threads) {
      return parallelism("threads", threads);
    }

    /** Pause before a failed record is read again; default 200 ms. */
    public Builder retryDelay(Duration delay) {
      return failurePause("retryDelay", delay);
    }

    public KafkaInboxConsumer build() {
      Objects.requireNonNull(topic, "topic");
      requireNameAndHandler();
      return new KafkaInboxConsumer(this);
    }

    private Properties properties() {
      Properties p = new Properties();
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      p.put(ConsumerConfig.GROUP_ID_CONFIG, group == null ? inboxName() : group);
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false); // committed after the inbox's commit
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
      // an offset commit during an outage gives up after 10 s instead of a minute
      p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
      p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
      p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      return p;
    }
  }
}

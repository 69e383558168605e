package dev.postbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.Dispatcher;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.Backlog;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Outbox → Kafka throughput: {@code -Dkafka.bench.messages} (default 100,000) committed events,
 * then one dispatcher with the end-to-end tests' settings drains them through {@link
 * KafkaTransport#send} or {@link KafkaTransport#sendBatch} to a topic of 8 partitions read by a
 * consumer that does nothing but count. Prints msg/s from the dispatcher's start until the consumer
 * has read every record. A first, unreported run of {@code -Dkafka.bench.warmup} (default 20,000)
 * events warms the JIT. Run with {@code mvn -Pbench test -Dtest='*KafkaThroughput*'}.
 */
@Tag("bench")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaThroughputBenchmarkTest {
  private static final int MESSAGES = Integer.getInteger("kafka.bench.messages", 100_000);
  private static final int WARMUP = Integer.getInteger("kafka.bench.warmup", 20_000);

  private KafkaBroker broker;

  @BeforeAll
  void startBroker() {
    broker = KafkaBroker.startNew();
  }

  @AfterAll
  void stopBroker() {
    broker.close();
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"postgresql, send", "postgresql, sendBatch", "mariadb, send", "mariadb, sendBatch"})
  void drain(String database, String mode) throws Exception {
    try (TestDatabase db =
            database.equals("postgresql") ? TestDatabase.postgres() : TestDatabase.mariadb();
        KafkaTransport kafka = KafkaTransport.builder(broker.bootstrapServers()).build()) {
      db.resetSchema();
      drain(database, db, kafka, mode, WARMUP);
      double seconds = drain(database, db, kafka, mode, MESSAGES);
      System.out.printf(
          "[bench kafka %s] %s: %d messages in %.1f s = %.0f msg/s (batchSize=100 concurrency=32"
              + " pollInterval=50ms, acks=all idempotent linger.ms=5, 8 partitions, after a"
              + " warm-up of %d)%n",
          database, mode, MESSAGES, seconds, MESSAGES / seconds, WARMUP);
    }
  }

  /** Commits {@code messages} events, drains them to a new topic; the seconds it took. */
  private double drain(
      String database, TestDatabase db, KafkaTransport kafka, String mode, int messages)
      throws Exception {
    String topic = "postbox-bench-" + UUID.randomUUID();
    broker.createTopic(topic, KafkaEndToEndFixture.PARTITIONS);
    try {
      Outbox outbox = Outbox.builder().build();
      Backlog.commit(
          db,
          database,
          outbox,
          messages,
          i -> Message.of(topic, "{\"n\":" + i + "}").eventId("e-" + i).key("k" + i));
      // a method reference overrides only send: the dispatcher sends one message per thread
      Transport transport = mode.equals("send") ? kafka::send : kafka;
      LongAdder read = new LongAdder();
      AtomicBoolean reading = new AtomicBoolean(true);
      Thread consumer = Thread.ofPlatform().start(() -> count(topic, read, reading));
      long t0 = System.nanoTime();
      Dispatcher dispatcher =
          KafkaDispatcherProcess.settings(db.dataSource())
              .outbox(outbox, transport)
              .instanceId("bench")
              .build();
      dispatcher.start();
      try {
        Await.until(Duration.ofMinutes(10), "every record read", () -> read.sum() >= messages);
      } finally {
        dispatcher.close();
        reading.set(false);
        consumer.join();
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      assertEquals(messages, broker.records(topic), "records");
      return seconds;
    } finally {
      broker.deleteTopic(topic);
    }
  }

  private void count(String topic, LongAdder read, AtomicBoolean reading) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-" + topic);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of(topic));
      while (reading.get()) {
        read.add(consumer.poll(Duration.ofMillis(100)).count());
      }
    }
  }
}

package dev.postbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.DatabaseTest;
import dev.postbox.Dispatcher;
import dev.postbox.Inbox;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.Closer;
import dev.postbox.testing.DispatchEvents;
import dev.postbox.testing.InboxHandler;
import dev.postbox.testing.OrderLedger;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the Kafka end-to-end tests share: one {@link KafkaBroker} per class, a topic of 8 partitions
 * and fresh {@link OrderLedger} tables per test, the dispatcher settings, the transport and
 * consumer they use, closing everything a test opened, and the one-line report of counts.
 */
abstract class KafkaEndToEndFixture extends DatabaseTest {
  static final int PARTITIONS = 8;
  static final long OUTAGE_MILLIS = Long.getLong("kafka.outageMillis", 10_000);
  static final Duration WAIT = Duration.ofMinutes(3);

  private final Outbox outbox = Outbox.builder().build();
  private final Inbox inbox = Inbox.builder().build();
  private final Closer closer = new Closer();
  KafkaBroker broker;
  OrderLedger orders;
  DispatchEvents events;
  String topic;
  private long startedNanos;

  @BeforeAll
  void startBroker() {
    broker = KafkaBroker.startNew();
    orders = new OrderLedger(ds, outbox);
  }

  @AfterAll
  void stopBroker() throws Exception {
    orders.drop();
    broker.close();
  }

  @BeforeEach
  void topicAndTables() throws Exception {
    startedNanos = System.nanoTime();
    events = new DispatchEvents();
    topic = "postbox-e2e-" + UUID.randomUUID();
    broker.createTopic(topic, PARTITIONS);
    orders.reset(topic);
  }

  @AfterEach
  void closeAndDeleteTopic() throws Exception {
    closer.close();
    broker.deleteTopic(topic);
  }

  /** Stops the broker, waits until the dispatcher saw the outage and the time is up, restarts. */
  long outage() {
    long stopped = System.nanoTime();
    broker.stop();
    try {
      Await.until(WAIT, "the dispatcher to detect the outage", () -> events.outages.get() > 0);
      long left = OUTAGE_MILLIS - (System.nanoTime() - stopped) / 1_000_000;
      if (left > 0) {
        Thread.sleep(left); // the outage's length, not a wait for anything
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      broker.start();
    }
    return (System.nanoTime() - stopped) / 1_000_000;
  }

  /**
   * Waits until {@code consumer} applied the {@code committed} events and the outbox is empty, then
   * until it read every record in the topic; closes {@code dispatcher}. Returns the records.
   */
  long drained(KafkaInboxConsumer consumer, long committed, Dispatcher dispatcher) {
    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= committed && orders.outboxRows() == 0);
    long records = broker.records(topic);
    Await.until(WAIT, "every record consumed", () -> consumer.stats().finished() >= records);
    dispatcher.close();
    return records;
  }

  /**
   * Each committed event applied exactly once, no row parked, and every record beyond the events an
   * inbox hit.
   */
  void assertExactlyOnce(long committed, long records, KafkaInboxConsumer.Stats stats) {
    orders.assertEffectsExactlyOnce(committed);
    assertEquals(0, orders.parkedRows(), "parked");
    assertEquals(records - committed, stats.duplicates(), "inbox hits = duplicate records");
  }

  KafkaTransport transport() {
    return register(KafkaTransport.builder(broker.bootstrapServers()).build());
  }

  KafkaInboxConsumer consumer(int threads, InboxHandler handler) {
    return register(
        KafkaInboxConsumer.builder(broker.bootstrapServers(), ds, inbox)
            .topic(topic)
            .name(OrderLedger.CONSUMER)
            .group(OrderLedger.CONSUMER + "-" + topic)
            .threads(threads)
            .retryDelay(Duration.ofMillis(50))
            .handler(handler)
            .build()
            .start());
  }

  Dispatcher.Builder dispatcher(Transport transport) {
    return KafkaDispatcherProcess.settings(ds)
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .listener(events);
  }

  <T extends AutoCloseable> T register(T closeable) {
    return closer.register(closeable);
  }

  void report(String test, String format, Object... args) {
    System.out.printf(
        "[e2e kafka %s] %s: %s in %.1f s%n",
        db.database(), test, String.format(format, args), (System.nanoTime() - startedNanos) / 1e9);
  }
}

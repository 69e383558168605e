package dev.postbox.kafka;

import dev.postbox.DatabaseTest;
import dev.postbox.Dispatcher;
import dev.postbox.Inbox;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the Kafka end-to-end tests share: one {@link KafkaBroker} per class, a topic of 8 partitions
 * and fresh {@link Orders} tables per test, the dispatcher settings, the transport and consumer
 * they use, closing everything a test opened, and the one-line report of counts.
 */
abstract class KafkaEndToEndFixture extends DatabaseTest {
  static final int PARTITIONS = 8;
  static final long OUTAGE_MILLIS = Long.getLong("kafka.outageMillis", 10_000);
  static final Duration WAIT = Duration.ofMinutes(3);

  private final Outbox outbox = Outbox.builder().build();
  private final Inbox inbox = Inbox.builder().build();
  private final List<AutoCloseable> closeAfter = new CopyOnWriteArrayList<>();
  KafkaBroker broker;
  Orders orders;
  DispatchCounts events;
  String topic;
  private long startedNanos;

  @BeforeAll
  void startBroker() {
    broker = KafkaBroker.startNew();
    orders = new Orders(ds, outbox);
  }

  @AfterAll
  void stopBroker() throws Exception {
    orders.drop();
    broker.close();
  }

  @BeforeEach
  void topicAndTables() throws Exception {
    startedNanos = System.nanoTime();
    events = new DispatchCounts();
    topic = "postbox-e2e-" + UUID.randomUUID();
    broker.createTopic(topic, PARTITIONS);
    orders.reset(topic);
  }

  @AfterEach
  void closeAndDeleteTopic() throws Exception {
    for (AutoCloseable c : closeAfter.reversed()) {
      c.close();
    }
    closeAfter.clear();
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

  KafkaTransport transport() {
    return register(KafkaTransport.builder(broker.bootstrapServers()).build());
  }

  KafkaInboxConsumer consumer(int threads, KafkaInboxConsumer.Handler handler) {
    return register(
        KafkaInboxConsumer.builder(broker.bootstrapServers(), ds, inbox)
            .topic(topic)
            .name(Orders.CONSUMER)
            .group(Orders.CONSUMER + "-" + topic)
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
    closeAfter.add(closeable);
    return closeable;
  }

  void report(String test, String format, Object... args) {
    System.out.printf(
        "[e2e kafka %s] %s: %s in %.1f s%n",
        db.database(), test, String.format(format, args), (System.nanoTime() - startedNanos) / 1e9);
  }
}

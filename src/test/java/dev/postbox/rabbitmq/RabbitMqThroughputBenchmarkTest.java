package dev.postbox.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.postbox.Dispatcher;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.Backlog;
import dev.postbox.testing.EndToEndDispatcher;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Outbox → RabbitMQ throughput: {@code -Drabbitmq.bench.messages} (default 100,000) committed
 * events, then one dispatcher with the end-to-end tests' settings drains them through {@link
 * RabbitMqTransport#send} or {@link RabbitMqTransport#batching() sendBatch} (persistent messages,
 * publisher confirms, 4 channels) to a durable queue on the local broker, read by a consumer that
 * does nothing but ack and count. Prints msg/s from the dispatcher's start until the consumer has
 * read every message. A first, unreported run of {@code -Drabbitmq.bench.warmup} (default 20,000)
 * events warms the JIT. Run with {@code mvn -Pbench test -Dtest='*RabbitMqThroughput*'}.
 */
@Tag("bench")
class RabbitMqThroughputBenchmarkTest {
  private static final int MESSAGES = Integer.getInteger("rabbitmq.bench.messages", 100_000);
  private static final int WARMUP = Integer.getInteger("rabbitmq.bench.warmup", 20_000);

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"postgresql, send", "postgresql, sendBatch", "mariadb, send", "mariadb, sendBatch"})
  void drain(String database, String mode) throws Exception {
    try (TestDatabase db =
        database.equals("postgresql") ? TestDatabase.postgres() : TestDatabase.mariadb()) {
      db.resetSchema();
      drain(database, db, mode, WARMUP);
      double seconds = drain(database, db, mode, MESSAGES);
      System.out.printf(
          "[bench rabbitmq %s] %s: %d messages in %.1f s = %.0f msg/s (batchSize=100"
              + " concurrency=32 pollInterval=50ms, persistent, publisher confirms, 4 channels,"
              + " after a warm-up of %d)%n",
          database, mode, MESSAGES, seconds, MESSAGES / seconds, WARMUP);
    }
  }

  /** Commits {@code messages} events, drains them to a new queue; the seconds it took. */
  private static double drain(String database, TestDatabase db, String mode, int messages)
      throws Exception {
    String queue = "postbox-bench-" + UUID.randomUUID();
    RabbitMq.declare(queue);
    try (RabbitMqTransport rabbit =
            RabbitMqTransport.builder(RabbitMq.factory()).routingKey(e -> queue).build();
        Connection connection = RabbitMq.factory().newConnection("postbox-bench-consumer")) {
      Outbox outbox = Outbox.builder().build();
      Backlog.commit(
          db,
          database,
          outbox,
          messages,
          i -> Message.of(queue, "{\"n\":" + i + "}").eventId("e-" + i).key("k" + i));
      LongAdder read = new LongAdder();
      Channel channel = connection.createChannel();
      channel.basicQos(500);
      channel.basicConsume(
          queue,
          false,
          new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(
                String tag, Envelope envelope, com.rabbitmq.client.AMQP.BasicProperties p, byte[] b)
                throws java.io.IOException {
              getChannel().basicAck(envelope.getDeliveryTag(), false);
              read.increment();
            }
          });
      Transport transport = mode.equals("send") ? rabbit : rabbit.batching();
      long t0 = System.nanoTime();
      Dispatcher dispatcher =
          EndToEndDispatcher.settings(db.dataSource(), Duration.ofSeconds(30))
              .outbox(outbox, transport)
              .instanceId("bench")
              .build();
      dispatcher.start();
      try {
        Await.until(Duration.ofMinutes(10), "every message read", () -> read.sum() >= messages);
      } finally {
        dispatcher.close();
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      assertEquals(messages, read.sum(), "messages read");
      assertEquals(0, RabbitMq.ready(RabbitMq.dead(queue)), "dead-lettered");
      return seconds;
    } finally {
      RabbitMq.delete(queue);
    }
  }
}

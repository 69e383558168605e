package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.Backlog;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.PullSubscribeOptions;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Outbox → NATS JetStream throughput: {@code -Dnats.bench.messages} (default 100,000) committed
 * events, then one dispatcher with the end-to-end tests' {@link NatsDispatcherProcess#settings
 * settings} drains them through {@link NatsTransport#send} or {@link NatsTransport#batching()
 * sendBatch} to a file-backed stream of 4 key-partitioned subjects, read by a pull consumer that
 * does nothing but ack and count. Prints msg/s from the dispatcher's start until the consumer has
 * read every message. A first, unreported run of {@code -Dnats.bench.warmup} (default 20,000)
 * events warms the JIT. Run with {@code mvn -Pbench test -Dtest='*NatsThroughput*'}.
 */
@Tag("bench")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NatsThroughputBenchmarkTest {
  private static final int MESSAGES = Integer.getInteger("nats.bench.messages", 100_000);
  private static final int WARMUP = Integer.getInteger("nats.bench.warmup", 20_000);
  private static final int PARTITIONS = 4;
  private static final AtomicInteger STREAMS = new AtomicInteger();

  private NatsAdmin natsAdmin;
  private NatsServer server;
  private JetStreamManagement jsm;

  @BeforeAll
  void startServer() throws Exception {
    natsAdmin = NatsAdmin.start("postbox-bench-admin");
    server = natsAdmin.server();
    jsm = natsAdmin.jsm();
  }

  @AfterAll
  void stopServer() throws Exception {
    natsAdmin.close();
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"postgresql, send", "postgresql, sendBatch", "mariadb, send", "mariadb, sendBatch"})
  void drain(String database, String mode) throws Exception {
    try (TestDatabase db =
            database.equals("postgresql") ? TestDatabase.postgres() : TestDatabase.mariadb();
        Connection nats = server.connect("postbox-bench-transport")) {
      db.resetSchema();
      drain(database, db, nats, mode, WARMUP);
      double seconds = drain(database, db, nats, mode, MESSAGES);
      System.out.printf(
          "[bench nats %s] %s: %d messages in %.1f s = %.0f msg/s (batchSize=100 concurrency=32"
              + " pollInterval=50ms, ackTimeout=2s, file stream, 4 subjects, after a warm-up of"
              + " %d)%n",
          database, mode, MESSAGES, seconds, MESSAGES / seconds, WARMUP);
    }
  }

  /** Commits {@code messages} events, drains them to a new stream; the seconds it took. */
  private double drain(String database, TestDatabase db, Connection nats, String mode, int messages)
      throws Exception {
    int n = STREAMS.incrementAndGet();
    String stream = "BENCH_" + n;
    String prefix = "bench." + n;
    NatsServer.stream(jsm, stream, prefix + ".>", 64 * 1024);
    try {
      Outbox outbox = Outbox.builder().build();
      Backlog.commit(
          db,
          database,
          outbox,
          messages,
          i -> Message.of("bench", "{\"n\":" + i + "}").eventId(prefix + "-" + i).key("k" + i));
      NatsTransport transport =
          NatsTransport.create(
              nats, NatsTransport.keyPartitioned(prefix, PARTITIONS), Duration.ofSeconds(2));
      Transport chosen = mode.equals("send") ? transport : transport.batching();
      NatsServer.pullConsumer(jsm, stream, "count", prefix + ".>", Duration.ofSeconds(30), 10_000);
      LongAdder read = new LongAdder();
      AtomicBoolean reading = new AtomicBoolean(true);
      ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
      Thread consumer = Thread.ofPlatform().start(() -> count(stream, read, reading, errors));
      long t0 = System.nanoTime();
      Dispatcher dispatcher =
          NatsDispatcherProcess.settings(db.dataSource())
              .outbox(outbox, chosen)
              .instanceId("bench")
              .build();
      dispatcher.start();
      try {
        Await.until(
            Duration.ofMinutes(10),
            "every message read",
            () -> read.sum() >= messages || !errors.isEmpty());
      } finally {
        dispatcher.close();
        reading.set(false);
        consumer.join();
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      assertTrue(errors.isEmpty(), () -> "consumer failed: " + errors);
      assertEquals(messages, read.sum(), "messages read");
      assertEquals(messages, jsm.getStreamInfo(stream).getStreamState().getMsgCount(), "stored");
      assertEquals(0, transport.duplicates(), "duplicate acks");
      return seconds;
    } finally {
      jsm.deleteStream(stream);
    }
  }

  /** Pulls from the durable "count" until stopped, acking and counting each message. */
  private void count(
      String stream,
      LongAdder read,
      AtomicBoolean reading,
      ConcurrentLinkedQueue<Throwable> errors) {
    try (Connection c = server.connectConsumer("postbox-bench-consumer")) {
      JetStreamSubscription sub =
          c.jetStream().subscribe(null, PullSubscribeOptions.bind(stream, "count"));
      while (reading.get()) {
        for (io.nats.client.Message m : sub.fetch(1_000, Duration.ofMillis(100))) {
          m.ack();
          read.increment();
        }
      }
    } catch (Throwable e) {
      errors.add(e);
    }
  }
}

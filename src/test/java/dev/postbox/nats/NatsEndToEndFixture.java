package dev.postbox.nats;

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
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the NATS end-to-end tests share: a {@code nats-server} child process per class (so a test
 * can stop it and start it again), a stream and fresh {@link OrderLedger} tables per test, the
 * transport, consumer and dispatcher they use, closing everything a test opened, and the one-line
 * report of counts.
 */
abstract class NatsEndToEndFixture extends DatabaseTest {
  static final Duration WAIT = Duration.ofSeconds(Long.getLong("nats.waitSeconds", 180));
  private static final Duration ACK_WAIT = Duration.ofSeconds(3);
  static final int PARTITIONS = 4;
  private static final AtomicInteger STREAMS = new AtomicInteger();

  private final Outbox outbox = Outbox.builder().build();
  private final Inbox inbox = Inbox.builder().build();
  private final Closer closer = new Closer();
  OrderLedger orders;
  NatsAdmin nats;
  NatsServer server;
  Connection admin;
  JetStreamManagement jsm;
  DispatchEvents events;
  String stream;
  String prefix;
  private long startedNanos;

  @BeforeAll
  void startServer() throws Exception {
    nats = NatsAdmin.start("postbox-e2e-admin");
    server = nats.server();
    admin = nats.connection();
    jsm = nats.jsm();
    orders = new OrderLedger(ds, outbox);
  }

  @AfterAll
  void stopServer() throws Exception {
    try {
      orders.drop();
    } finally {
      if (nats != null) {
        nats.close();
      }
    }
  }

  @BeforeEach
  void streamAndTables() throws Exception {
    startedNanos = System.nanoTime();
    events = new DispatchEvents();
    int n = STREAMS.incrementAndGet();
    stream = "E2E_" + n;
    prefix = "e2e." + n;
    NatsServer.stream(jsm, stream, prefix + ".>", 64 * 1024);
    orders.reset(OrderLedger.TOPIC);
  }

  @AfterEach
  void closeAndDeleteStream() throws Exception {
    closer.close();
    jsm.deleteStream(stream);
  }

  NatsTransport transport() throws Exception {
    Connection c = register(server.connect("postbox-transport"));
    return NatsTransport.create(
        c, NatsTransport.keyPartitioned(prefix, PARTITIONS), Duration.ofSeconds(2));
  }

  /**
   * A durable {@code name} on {@code filter} with explicit acks and the test's ack_wait, and a
   * consumer with {@code workers} pulling from it; {@code beforeAck} false withholds an ack.
   */
  NatsConsumer consumer(
      String name,
      String filter,
      long maxAckPending,
      int workers,
      InboxHandler handler,
      Predicate<dev.postbox.Envelope> beforeAck)
      throws Exception {
    NatsServer.pullConsumer(jsm, stream, name, filter, ACK_WAIT, maxAckPending);
    Connection c = register(server.connectConsumer("postbox-consumer-" + name));
    return register(
        NatsConsumer.builder(c, ds, inbox)
            .durable(stream, name)
            .name(OrderLedger.CONSUMER)
            .workers(workers)
            .batch(50)
            .nakDelay(Duration.ofMillis(50))
            .handler(handler)
            .beforeAck(beforeAck)
            .build()
            .start());
  }

  Dispatcher.Builder dispatcher(Transport transport) {
    return NatsDispatcherProcess.settings(ds)
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .listener(events);
  }

  <T extends AutoCloseable> T register(T closeable) {
    return closer.register(closeable);
  }

  /** Messages stored in this test's stream. */
  long messages() {
    try {
      return jsm.getStreamInfo(stream).getStreamState().getMsgCount();
    } catch (Exception e) {
      String fresh;
      try (Connection c = server.connect("postbox-e2e-diagnose")) {
        fresh =
            "fresh connection sees "
                + c.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
      } catch (Exception x) {
        fresh = "fresh connection fails too: " + x;
      }
      throw new IllegalStateException(
          "stream info of " + stream + " (admin status " + admin.getStatus() + ", " + fresh + ")",
          e);
    }
  }

  /** Messages of durable {@code name} not yet delivered plus those delivered and not acked. */
  long pending(String name) {
    try {
      var info = jsm.getConsumerInfo(stream, name);
      return info.getNumPending() + info.getNumAckPending();
    } catch (Exception e) {
      throw new IllegalStateException("consumer info of " + name, e);
    }
  }

  /**
   * Stops the server, waits until {@code detected} (the dispatcher saw the outage), keeps it down
   * for the rest of 10 s (-Dnats.outageSeconds) while the writers go on, and starts it again on the
   * same port and store; returns how long it was down, in ms.
   */
  long serverDown(BooleanSupplier detected) throws Exception {
    long seconds = Long.getLong("nats.outageSeconds", 10);
    long stopped = System.nanoTime();
    server.down();
    try {
      Await.until(WAIT, "the dispatcher to detect the outage", detected);
      long left = Duration.ofSeconds(seconds).toNanos() - (System.nanoTime() - stopped);
      if (left > 0) {
        Thread.sleep(Duration.ofNanos(left)); // the outage itself: events keep being added
      }
    } finally {
      server.up();
    }
    return (System.nanoTime() - stopped) / 1_000_000;
  }

  static NatsConsumer.Stats sum(List<NatsConsumer> consumers) {
    NatsConsumer.Stats total = new NatsConsumer.Stats(0, 0, 0, 0, 0);
    for (NatsConsumer c : consumers) {
      total = total.plus(c.stats());
    }
    return total;
  }

  void report(String test, String format, Object... args) {
    System.out.printf(
        "[e2e nats %s] %s: %s in %.1f s%n",
        db.database(), test, String.format(format, args), (System.nanoTime() - startedNanos) / 1e9);
  }
}

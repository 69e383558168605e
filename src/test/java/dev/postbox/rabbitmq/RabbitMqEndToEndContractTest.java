package dev.postbox.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import dev.postbox.BatchTransport;
import dev.postbox.DatabaseTest;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.Inbox;
import dev.postbox.Outbox;
import dev.postbox.RejectedMessageException;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.ChildProcess;
import dev.postbox.testing.Closer;
import dev.postbox.testing.CountingBatchTransport;
import dev.postbox.testing.CountingTransport;
import dev.postbox.testing.DispatchEvents;
import dev.postbox.testing.EndToEndDispatcher;
import dev.postbox.testing.InboxHandler;
import dev.postbox.testing.KeySequenceCheck;
import dev.postbox.testing.KeyWriters;
import dev.postbox.testing.OrderLedger;
import dev.postbox.testing.Sql;
import dev.postbox.testing.SteadyWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Outbox → RabbitMQ → consumer with the inbox, end to end on the local broker and a real database:
 * business transactions add events, a dispatcher publishes them with {@link RabbitMqTransport}, a
 * {@link RabbitMqConsumer} applies each one's side effect (a row in {@code e2e_effects}) in the
 * inbox's transaction. Every test uses its own queue, deletes it after, and prints one line with
 * the counts it saw. Subclasses only say which database.
 */
@Tag("reliability") // mvn -B -Preliability verify
public abstract class RabbitMqEndToEndContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofMinutes(3);

  private final Outbox outbox = Outbox.builder().build();
  private final Inbox inbox = Inbox.builder().build();
  private final Closer closer = new Closer();
  private OrderLedger orders;
  private DispatchEvents events;
  private String queue;
  private long startedNanos;

  @BeforeAll
  void ledger() {
    orders = new OrderLedger(ds, outbox);
  }

  @BeforeEach
  void queueAndTables() throws Exception {
    startedNanos = System.nanoTime();
    events = new DispatchEvents();
    queue = "postbox-e2e-" + UUID.randomUUID();
    RabbitMq.declare(queue);
    orders.reset(OrderLedger.TOPIC);
  }

  @AfterEach
  void closeAndDeleteQueue() throws Exception {
    closer.close();
    RabbitMq.delete(queue);
  }

  @AfterAll
  void dropTables() throws Exception {
    orders.drop();
  }

  @Test
  void tenThousandEventsTenPercentRolledBackHaveTheirSideEffectExactlyOnce() throws Exception {
    int added = 10_000;
    RabbitMqConsumer consumer = consumer(4, 50);
    CountingTransport transport = new CountingTransport(transport());
    Dispatcher dispatcher = started(dispatcher(transport));

    // 10,000 business transactions from 8 writers while dispatch runs; every tenth rolls back
    IntPredicate rollsBack = i -> i % 10 == 9;
    int committed = orders.write(added, 8, rollsBack, dispatcher);
    assertEquals(9_000, committed);

    Await.until(
        WAIT,
        "9,000 effects",
        () -> consumer.stats().handled() >= committed && orders.outboxRows() == 0);
    Await.until(
        WAIT, "every delivery finished", () -> consumer.stats().finished() >= transport.sent());
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(committed);
    for (String id : orders.effectIds()) {
      assertTrue(!rollsBack.test(Integer.parseInt(id.substring("order-".length()))), id);
    }
    assertEquals(committed, transport.sent(), "published");
    assertEquals(committed, stats.handled());
    assertEquals(0, stats.duplicates(), "inbox hits");
    assertEquals(0, stats.rejected());
    assertEquals(committed, orders.inboxRows());
    assertEquals(0, orders.parkedRows());
    assertEquals(0, RabbitMq.messages(queue), "left in the queue");
    report(
        "10k events, 10% rolled back",
        "added=%d committed=%d rolledBack=%d published=%d delivered=%d effects=%d inboxHits=%d"
            + " duplicatesInjected=0 failed=%d parked=%d",
        added,
        committed,
        added - committed,
        transport.sent(),
        stats.finished(),
        orders.effects(),
        stats.duplicates(),
        stats.failed(),
        orders.parkedRows());
  }

  @Test
  void duplicatesInjectedAreAbsorbedByTheInboxOnePerDuplicate() throws Exception {
    int n = 3_000;
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<String> ids = new ArrayList<>();
    for (int batch = 0; batch < n / 100; batch++) {
      List<String> batchIds = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        batchIds.add("order-" + (batch * 100 + i));
      }
      Sql.commit(
          ds,
          c -> {
            for (String id : batchIds) {
              orders.add(c, id);
            }
          });
      ids.addAll(batchIds);
    }
    RabbitMqConsumer consumer = consumer(4, 20);
    RabbitMqTransport rabbit = transport();
    CountingTransport dispatched = new CountingTransport(rabbit);
    Dispatcher dispatcher = started(dispatcher(dispatched));

    // while the dispatcher publishes the originals: 30% of the events published 1-3 extra times,
    // half of them with their copies sent at the same moment from separate threads
    List<String> chosen = new ArrayList<>(ids);
    Collections.shuffle(chosen, random);
    chosen = chosen.subList(0, n * 30 / 100);
    AtomicInteger injected = new AtomicInteger();
    AtomicInteger concurrentCopies = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    Semaphore permits = new Semaphore(64);
    List<Thread> threads = new ArrayList<>();
    for (String id : chosen) {
      int copies = 1 + random.nextInt(3);
      boolean together = copies > 1 && random.nextBoolean();
      Envelope copy =
          new Envelope(
              id,
              OrderLedger.TOPIC,
              id,
              OrderLedger.payload(id),
              Map.of("traceparent", OrderLedger.trace(id)),
              1,
              null);
      CountDownLatch go = new CountDownLatch(1);
      for (int k = 0; k < (together ? copies : 1); k++) {
        permits.acquireUninterruptibly();
        threads.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        go.await();
                        for (int j = 0; j < (together ? 1 : copies); j++) {
                          rabbit.send(copy);
                          injected.incrementAndGet();
                        }
                      } catch (Throwable e) {
                        errors.add(e);
                      } finally {
                        permits.release();
                      }
                    }));
      }
      if (together) {
        concurrentCopies.addAndGet(copies);
      }
      go.countDown();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(errors.isEmpty(), () -> "injection failed: " + errors);

    int expected = n + injected.get();
    Await.until(
        WAIT,
        "every original and copy handled",
        () -> consumer.stats().finished() - consumer.stats().failed() >= expected);
    Await.until(WAIT, "the outbox drained", () -> orders.outboxRows() == 0);
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(n);
    assertEquals(n, dispatched.sent(), "published by the dispatcher");
    assertEquals(injected.get(), stats.duplicates(), "inbox hits = duplicates injected");
    assertEquals(n, stats.handled());
    assertEquals(n, orders.inboxRows());
    assertEquals(0, orders.parkedRows());
    assertEquals(0, RabbitMq.messages(queue), "left in the queue");
    report(
        "duplicates injected",
        "committed=%d eventsDuplicated=%d duplicatesInjected=%d (sent together=%d) published=%d"
            + " delivered=%d effects=%d inboxHits=%d failed=%d parked=%d seed=%d",
        n,
        chosen.size(),
        injected.get(),
        concurrentCopies.get(),
        dispatched.sent() + injected.get(),
        stats.finished(),
        orders.effects(),
        stats.duplicates(),
        stats.failed(),
        orders.parkedRows(),
        seed);
  }

  @Test
  void consumerKilledBetweenCommitAndAckHasItsRedeliveryAbsorbedByTheInbox() throws Exception {
    int n = 5;
    Sql.commit(
        ds,
        c -> {
          for (int i = 0; i < n; i++) {
            orders.add(c, "order-" + i);
          }
        });
    CountingTransport transport = new CountingTransport(transport());
    Dispatcher dispatcher = started(dispatcher(transport));
    Await.until(WAIT, "all published", () -> transport.sent() == n && orders.outboxRows() == 0);
    dispatcher.close();

    ChildProcess process = ConsumerProcess.start(queue, OrderLedger.CONSUMER, db);
    String killedAfterCommit;
    try {
      killedAfterCommit =
          process
              .awaitLine(ConsumerProcess.COMMITTED)
              .substring(ConsumerProcess.COMMITTED.length());
      // the window: the effect is committed, the message is still unacknowledged
      assertEquals(1, orders.effectsOf(killedAfterCommit), "committed before the kill");
      assertEquals(n, RabbitMq.messages(queue), "nothing acked yet");
    } finally {
      process.kill();
    }
    Await.until(WAIT, "the unacked message requeued", () -> RabbitMq.ready(queue) == n);

    RabbitMqConsumer consumer = consumer(1, 10);
    Await.until(WAIT, "all handled", () -> consumer.stats().finished() == n);

    RabbitMqConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(n);
    assertEquals(1, stats.duplicates(), "the redelivery was an inbox hit");
    assertEquals(n - 1, stats.handled());
    assertTrue(stats.redelivered() >= 1, "redelivered flag");
    assertEquals(
        "process-" + process.pid(),
        Sql.value(ds, "SELECT applied_by FROM e2e_effects WHERE event_id = ?", killedAfterCommit));
    assertEquals(0, RabbitMq.messages(queue), "left in the queue");
    report(
        "consumer killed between commit and ack",
        "committed=%d published=%d killedAfterCommit=%s delivered=%d (1 to the killed process)"
            + " redelivered=%d effects=%d inboxHits=%d parked=%d",
        n,
        transport.sent(),
        killedAfterCommit,
        stats.finished() + 1,
        stats.redelivered(),
        orders.effects(),
        stats.duplicates(),
        orders.parkedRows());
  }

  @Test
  void brokerStoppedDuringDispatchParksNothingAndLosesNothing() throws Exception {
    RabbitMqConsumer consumer = consumer(2, 20);
    CountingTransport transport = new CountingTransport(transport());
    Dispatcher dispatcher = started(dispatcher(transport));

    // a steady stream of business transactions before, during and after the outage
    SteadyWriter writer = new SteadyWriter(ds, orders, 20, Duration.ofMillis(50), dispatcher);
    long outageMillis;
    long backNanos;
    int committedBefore;
    int committedDuring;
    try {
      Await.until(WAIT, "some deliveries before the outage", () -> orders.effects() >= 200);
      committedBefore = writer.committed();
      long stopped = System.nanoTime();
      RabbitMq.stop();
      try {
        Await.until(WAIT, "the dispatcher to detect the outage", () -> events.outages.get() > 0);
        Thread.sleep(3_000); // stays down while events keep being added
      } finally {
        RabbitMq.start();
        backNanos = System.nanoTime();
        outageMillis = (backNanos - stopped) / 1_000_000;
      }
      committedDuring = writer.committed() - committedBefore;
      Thread.sleep(1_000);
    } finally {
      writer.stop();
    }
    int total = writer.committed();

    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= total && orders.outboxRows() == 0);
    long appliedMillis = (System.nanoTime() - backNanos) / 1_000_000;
    Await.until(WAIT, "the queue drained", () -> RabbitMq.messages(queue) == 0);
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(total);
    assertEquals(0, orders.parkedRows(), "parked");
    assertEquals(0, events.parked.get(), "parked events");
    assertTrue(events.outages.get() >= 1, "outage detected");
    assertTrue(events.recoveries.get() >= 1, "outage ended");
    assertEquals(total, stats.handled());
    assertEquals(total, orders.inboxRows());
    report(
        "broker stopped during dispatch",
        "committed=%d (before=%d, while down≈%d) outage=%d ms, dispatch resumed %d ms and all"
            + " applied %d ms after the broker was back; published=%d sendFailures=%d"
            + " listenerFailed=%d delivered=%d effects=%d inboxHits=%d failed=%d parked=%d"
            + " outages=%d",
        total,
        committedBefore,
        committedDuring,
        outageMillis,
        (events.recoveredNanos - backNanos) / 1_000_000,
        appliedMillis,
        transport.sent(),
        transport.failures(),
        events.failed.get(),
        stats.finished(),
        orders.effects(),
        stats.duplicates(),
        stats.failed(),
        orders.parkedRows(),
        events.outages.get());
  }

  /**
   * 100 keys × 100 events, each key written by one thread in sequence (so its commit order is its
   * sequence), dispatched in key order through the broker to one consumer channel that checks, per
   * key, that every event it applies for the first time is the next in sequence. The broker is
   * stopped for 5 s mid-run.
   */
  @Test
  void orderedRunKeepsPerKeyOrderThroughABrokerOutage() throws Exception {
    int keys = 100;
    int perKey = 100;
    KeySequenceCheck order = new KeySequenceCheck(OrderLedger.effects("test"));
    RabbitMqConsumer consumer = consumer(1, 50, order);
    CountingTransport transport = new CountingTransport(transport());
    Dispatcher dispatcher = started(dispatcher(transport));
    KeyWriters writers =
        new KeyWriters(ds, orders, keys, perKey, Duration.ofMillis(20), dispatcher);
    long outageMillis;
    try {
      // judged at the publisher, not the consumer: a consumer lagging behind would let the
      // dispatcher publish everything before the broker stops, and no outage would be seen
      Await.until(WAIT, "some events published before the outage", () -> transport.sent() >= 1000);
      long stopped = System.nanoTime();
      RabbitMq.stop();
      try {
        Thread.sleep(5_000);
      } finally {
        RabbitMq.start();
        outageMillis = (System.nanoTime() - stopped) / 1_000_000;
      }
    } finally {
      writers.join();
    }
    int total = keys * perKey;
    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= total && orders.outboxRows() == 0);
    Await.until(WAIT, "the queue drained", () -> RabbitMq.messages(queue) == 0);
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(total);
    order.assertInOrder(keys, perKey, "consumer");
    assertEquals(0, orders.parkedRows(), "parked");
    assertTrue(events.outages.get() >= 1, "outage detected");
    report(
        "ordered, broker stopped 5 s",
        "keys=%d perKey=%d committed=%d outage=%d ms inversions=%d lost=%d published=%d"
            + " sendFailures=%d delivered=%d inboxHits=%d parked=%d outages=%d",
        keys,
        perKey,
        total,
        outageMillis,
        order.inversions(),
        total - orders.effects(),
        transport.sent(),
        transport.failures(),
        stats.finished(),
        stats.duplicates(),
        orders.parkedRows(),
        events.outages.get());
  }

  @Test
  void batchHandOffDeliversEveryRoutableEventOnceAndParksOnlyTheUnroutable() throws Exception {
    int n = 2_000;
    RabbitMqConsumer consumer = consumer(4, 50);
    // every 100th event goes to a queue that does not exist: returned by the broker, so it fails
    // alone (RejectedMessageException inside a BatchSendException) and is parked after 2 attempts
    IntPredicate unroutable = i -> i % 100 == 7;
    int expectedParked = (int) java.util.stream.IntStream.range(0, n).filter(unroutable).count();
    BatchTransport rabbit =
        register(
                RabbitMqTransport.builder(RabbitMq.factory())
                    .routingKey(
                        e ->
                            unroutable.test(Integer.parseInt(e.eventId().substring(6)))
                                ? queue + ".no-such-queue"
                                : queue)
                    .build())
            .batching();
    CountingBatchTransport counting = new CountingBatchTransport(rabbit);
    Dispatcher dispatcher = started(dispatcher(counting).maxAttempts(2));

    int committed = orders.write(n, 8, i -> false, dispatcher);
    assertEquals(n, committed);
    int routable = n - expectedParked;
    Await.until(
        WAIT,
        routable + " effects and " + expectedParked + " parked",
        () ->
            consumer.stats().handled() >= routable
                && orders.parkedRows() == expectedParked
                && orders.outboxRows() == expectedParked);
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    assertEquals(routable, orders.effects(), "effects");
    assertEquals(routable, orders.distinctEffects(), "distinct");
    assertEquals(routable, stats.handled());
    assertEquals(0, stats.duplicates(), "inbox hits");
    assertEquals(expectedParked, events.parked.get(), "parked events");
    assertEquals(0, events.outages.get(), "outages");
    assertEquals(0, counting.single.get(), "envelopes sent one by one");
    assertEquals(
        routable + 2 * expectedParked, counting.batched.get(), "envelopes handed over in batches");
    assertEquals(0, RabbitMq.messages(queue), "left in the queue");
    report(
        "batch hand-off",
        "added=%d batches=%d envelopesInBatches=%d delivered=%d effects=%d inboxHits=%d parked=%d"
            + " outages=%d",
        n,
        counting.batches.get(),
        counting.batched.get(),
        stats.finished(),
        orders.effects(),
        stats.duplicates(),
        orders.parkedRows(),
        events.outages.get());
  }

  @Test
  void transportPublishesPersistentMessagesWithTheEnvelopeAndRefusesUnroutableOnes()
      throws Exception {
    RabbitMqTransport transport = transport();
    Envelope envelope =
        new Envelope(
            "order-7:v1",
            OrderLedger.TOPIC,
            "order-7",
            "{\"id\":7}",
            Map.of("traceparent", OrderLedger.trace("order-7")),
            2,
            Instant.parse("2026-01-02T03:04:05Z"));
    transport.send(envelope);

    GetResponse got = RabbitMq.withChannel(ch -> ch.basicGet(queue, true));
    assertNotNull(got, "published and confirmed");
    AMQP.BasicProperties p = got.getProps();
    assertEquals("order-7:v1", p.getMessageId());
    assertEquals(OrderLedger.TOPIC, p.getType());
    assertEquals("application/json", p.getContentType());
    assertEquals(2, p.getDeliveryMode(), "persistent");
    assertEquals("{\"id\":7}", new String(got.getBody(), StandardCharsets.UTF_8));
    assertEquals(null, RabbitMqConsumer.problem(p));
    assertEquals(envelope, RabbitMqConsumer.envelope(p, got.getBody()));

    RabbitMqTransport nowhere =
        register(
            RabbitMqTransport.builder(RabbitMq.factory())
                .routingKey(e -> queue + ".no-such-queue")
                .build());
    RejectedMessageException rejected =
        assertThrows(RejectedMessageException.class, () -> nowhere.send(envelope));
    assertTrue(rejected.getMessage().contains("NO_ROUTE"), rejected.getMessage());
    report("transport properties", "published=1 unroutableRejected=1");
  }

  @Test
  void invalidEnvelopeIsDeadLetteredAndNeverHandled() throws Exception {
    RabbitMqConsumer consumer = consumer(1, 10);
    AMQP.BasicProperties valid =
        RabbitMqTransport.properties(
            new Envelope("order-1", OrderLedger.TOPIC, null, "{}", Map.of(), 1, Instant.now()));
    RabbitMq.withChannel(
        ch -> {
          // no message id; a message id that differs from the event id; no event id at all
          ch.basicPublish("", queue, valid.builder().messageId(null).build(), new byte[0]);
          ch.basicPublish("", queue, valid.builder().messageId("order-2").build(), new byte[0]);
          ch.basicPublish("", queue, valid.builder().headers(Map.of()).build(), new byte[0]);
          ch.basicPublish("", queue, valid, "{}".getBytes(StandardCharsets.UTF_8));
          return null;
        });
    Await.until(WAIT, "all four seen", () -> consumer.stats().finished() == 4);
    Await.until(WAIT, "three dead-lettered", () -> RabbitMq.ready(RabbitMq.dead(queue)) == 3);

    RabbitMqConsumer.Stats stats = consumer.stats();
    assertEquals(3, stats.rejected());
    assertEquals(1, stats.handled());
    assertEquals(1, orders.effects());
    assertEquals(1, orders.effectsOf("order-1"));
    report(
        "invalid envelopes",
        "delivered=%d rejected=%d deadLettered=%d effects=%d",
        stats.finished(),
        stats.rejected(),
        RabbitMq.ready(RabbitMq.dead(queue)),
        orders.effects());
  }

  // ---------------------------------------------------------------------------------------------

  private RabbitMqTransport transport() {
    return register(
        RabbitMqTransport.builder(RabbitMq.factory()).routingKey(envelope -> queue).build());
  }

  private RabbitMqConsumer consumer(int channels, int prefetch) throws Exception {
    return consumer(channels, prefetch, OrderLedger.effects("test"));
  }

  private RabbitMqConsumer consumer(int channels, int prefetch, InboxHandler handler)
      throws Exception {
    return register(
        RabbitMqConsumer.builder(RabbitMq.factory(), ds, inbox)
            .queue(queue)
            .name(OrderLedger.CONSUMER)
            .channels(channels)
            .prefetch(prefetch)
            .requeueDelay(Duration.ofMillis(50))
            .handler(handler)
            .build()
            .start());
  }

  private Dispatcher.Builder dispatcher(Transport transport) {
    return EndToEndDispatcher.settings(ds, Duration.ofSeconds(30))
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .listener(events);
  }

  private <T extends AutoCloseable> T register(T closeable) {
    return closer.register(closeable);
  }

  private void report(String test, String format, Object... args) {
    System.out.printf(
        "[e2e %s] %s: %s in %.1f s%n",
        db.database(), test, String.format(format, args), (System.nanoTime() - startedNanos) / 1e9);
  }
}

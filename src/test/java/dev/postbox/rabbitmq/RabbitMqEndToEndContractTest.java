package dev.postbox.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Backoff;
import dev.postbox.BatchTransport;
import dev.postbox.DatabaseTest;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.Inbox;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.RejectedMessageException;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
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
  private static final String CONSUMER = "e2e-orders";
  private static final String TOPIC = "order.placed";
  private static final Duration WAIT = Duration.ofMinutes(3);

  private final Outbox outbox = Outbox.builder().build();
  private final Inbox inbox = Inbox.builder().build();
  private final List<AutoCloseable> closeAfter = new CopyOnWriteArrayList<>();
  private DispatchEvents events;
  private String queue;
  private long startedNanos;

  @BeforeEach
  void queueAndTables() throws Exception {
    startedNanos = System.nanoTime();
    events = new DispatchEvents();
    queue = "postbox-e2e-" + UUID.randomUUID();
    RabbitMq.declare(queue);
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS e2e_effects");
      s.execute("DROP TABLE IF EXISTS e2e_orders");
      // the business data: one order per committed event (the ledger of what must arrive)
      s.execute(
          "CREATE TABLE e2e_orders (event_id VARCHAR(128) NOT NULL PRIMARY KEY, amount INTEGER)");
      // the side effect: deliberately no unique key, so a second application would show
      s.execute(
          "CREATE TABLE e2e_effects (event_id VARCHAR(128) NOT NULL, applied_by VARCHAR(64) NOT"
              + " NULL)");
      s.execute("CREATE INDEX e2e_effects_event ON e2e_effects (event_id)");
    }
  }

  @AfterEach
  void closeAndDeleteQueue() throws Exception {
    for (AutoCloseable c : closeAfter.reversed()) {
      c.close();
    }
    closeAfter.clear();
    RabbitMq.delete(queue);
  }

  @AfterAll
  void dropTables() throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS e2e_effects");
      s.execute("DROP TABLE IF EXISTS e2e_orders");
    }
  }

  @Test
  void tenThousandEventsTenPercentRolledBackHaveTheirSideEffectExactlyOnce() throws Exception {
    int added = 10_000;
    RabbitMqConsumer consumer = consumer(4, 50);
    CountingTransport transport = new CountingTransport(transport());
    Dispatcher dispatcher = started(dispatcher(transport));

    // 10,000 business transactions from 8 writers while dispatch runs; every tenth rolls back
    IntPredicate rollsBack = i -> i % 10 == 9;
    int committed = write(added, 8, rollsBack, dispatcher);
    assertEquals(9_000, committed);

    Await.until(
        WAIT, "9,000 effects", () -> consumer.stats().handled() >= committed && outboxRows() == 0);
    Await.until(
        WAIT, "every delivery finished", () -> consumer.stats().finished() >= transport.sent());
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    assertEffectsExactlyOnce(committed);
    for (String id : effectIds()) {
      assertTrue(!rollsBack.test(Integer.parseInt(id.substring("order-".length()))), id);
    }
    assertEquals(committed, transport.sent(), "published");
    assertEquals(committed, stats.handled());
    assertEquals(0, stats.duplicates(), "inbox hits");
    assertEquals(0, stats.rejected());
    assertEquals(committed, inboxRows());
    assertEquals(0, parkedRows());
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
        effects(),
        stats.duplicates(),
        stats.failed(),
        parkedRows());
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
              addOrder(c, id);
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
          new Envelope(id, TOPIC, id, payload(id), Map.of("traceparent", trace(id)), 1, null);
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
    Await.until(WAIT, "the outbox drained", () -> outboxRows() == 0);
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    assertEffectsExactlyOnce(n);
    assertEquals(n, dispatched.sent(), "published by the dispatcher");
    assertEquals(injected.get(), stats.duplicates(), "inbox hits = duplicates injected");
    assertEquals(n, stats.handled());
    assertEquals(n, inboxRows());
    assertEquals(0, parkedRows());
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
        effects(),
        stats.duplicates(),
        stats.failed(),
        parkedRows(),
        seed);
  }

  @Test
  void consumerKilledBetweenCommitAndAckHasItsRedeliveryAbsorbedByTheInbox() throws Exception {
    int n = 5;
    Sql.commit(
        ds,
        c -> {
          for (int i = 0; i < n; i++) {
            addOrder(c, "order-" + i);
          }
        });
    CountingTransport transport = new CountingTransport(transport());
    Dispatcher dispatcher = started(dispatcher(transport));
    Await.until(WAIT, "all published", () -> transport.sent() == n && outboxRows() == 0);
    dispatcher.close();

    ConsumerProcess.Running process = ConsumerProcess.start(queue, CONSUMER, (HikariDataSource) ds);
    String killedAfterCommit;
    try {
      killedAfterCommit =
          process
              .awaitLine(ConsumerProcess.COMMITTED)
              .substring(ConsumerProcess.COMMITTED.length());
      // the window: the effect is committed, the message is still unacknowledged
      assertEquals(1, effects(killedAfterCommit), "committed before the kill");
      assertEquals(n, RabbitMq.messages(queue), "nothing acked yet");
    } finally {
      process.kill();
    }
    Await.until(WAIT, "the unacked message requeued", () -> RabbitMq.ready(queue) == n);

    RabbitMqConsumer consumer = consumer(1, 10);
    Await.until(WAIT, "all handled", () -> consumer.stats().finished() == n);

    RabbitMqConsumer.Stats stats = consumer.stats();
    assertEffectsExactlyOnce(n);
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
        effects(),
        stats.duplicates(),
        parkedRows());
  }

  @Test
  void brokerStoppedDuringDispatchParksNothingAndLosesNothing() throws Exception {
    RabbitMqConsumer consumer = consumer(2, 20);
    CountingTransport transport = new CountingTransport(transport());
    Dispatcher dispatcher = started(dispatcher(transport));

    // a steady stream of business transactions before, during and after the outage
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger committed = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    Thread writer =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    while (writing.get()) {
                      int from = committed.get();
                      Sql.commit(
                          ds,
                          c -> {
                            for (int i = from; i < from + 20; i++) {
                              addOrder(c, "order-" + i);
                            }
                          });
                      committed.addAndGet(20);
                      dispatcher.wakeUp();
                      Thread.sleep(50);
                    }
                  } catch (Throwable e) {
                    errors.add(e);
                  }
                });
    long outageMillis;
    long backNanos;
    int committedBefore;
    int committedDuring;
    try {
      Await.until(WAIT, "some deliveries before the outage", () -> effects() >= 200);
      committedBefore = committed.get();
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
      committedDuring = committed.get() - committedBefore;
      Thread.sleep(1_000);
    } finally {
      writing.set(false);
      writer.join();
    }
    assertTrue(errors.isEmpty(), () -> "writer failed: " + errors);
    int total = committed.get();

    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= total && outboxRows() == 0);
    long appliedMillis = (System.nanoTime() - backNanos) / 1_000_000;
    Await.until(WAIT, "the queue drained", () -> RabbitMq.messages(queue) == 0);
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    assertEffectsExactlyOnce(total);
    assertEquals(0, parkedRows(), "parked");
    assertEquals(0, events.parked.get(), "parked events");
    assertTrue(events.outages.get() >= 1, "outage detected");
    assertTrue(events.recoveries.get() >= 1, "outage ended");
    assertEquals(total, stats.handled());
    assertEquals(total, inboxRows());
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
        effects(),
        stats.duplicates(),
        stats.failed(),
        parkedRows(),
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
    Map<String, Integer> lastApplied = new ConcurrentHashMap<>();
    AtomicInteger inversions = new AtomicInteger();
    RabbitMqConsumer.Handler effects = ConsumerProcess.effects("test");
    RabbitMqConsumer consumer =
        consumer(
            1,
            50,
            (tx, envelope) -> {
              effects.handle(tx, envelope);
              int seq = Integer.parseInt(envelope.eventId().substring(envelope.key().length() + 1));
              // the inbox lets each event through once; the next one of its key must be seq + 1
              Integer last = lastApplied.put(envelope.key(), seq);
              if (seq != (last == null ? 0 : last + 1)) {
                inversions.incrementAndGet();
              }
            });
    CountingTransport transport = new CountingTransport(transport());
    Dispatcher dispatcher = started(dispatcher(transport));
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 10; w++) {
      int writer = w;
      writers.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      for (int seq = 0; seq < perKey; seq++) {
                        for (int k = writer; k < keys; k += 10) {
                          String key = "key" + k;
                          String id = key + "-" + seq;
                          Sql.commit(ds, c -> addOrder(c, id, key));
                        }
                        dispatcher.wakeUp();
                        Thread.sleep(20);
                      }
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }));
    }
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
      for (Thread t : writers) {
        t.join();
      }
    }
    assertTrue(errors.isEmpty(), () -> "writers failed: " + errors);
    int total = keys * perKey;
    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= total && outboxRows() == 0);
    Await.until(WAIT, "the queue drained", () -> RabbitMq.messages(queue) == 0);
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    assertEffectsExactlyOnce(total);
    assertEquals(0, inversions.get(), "per-key inversions at the consumer");
    assertEquals(keys, lastApplied.size(), "keys seen");
    for (Integer last : lastApplied.values()) {
      assertEquals(perKey - 1, last, "each key's last event applied last");
    }
    assertEquals(0, parkedRows(), "parked");
    assertTrue(events.outages.get() >= 1, "outage detected");
    report(
        "ordered, broker stopped 5 s",
        "keys=%d perKey=%d committed=%d outage=%d ms inversions=%d lost=%d published=%d"
            + " sendFailures=%d delivered=%d inboxHits=%d parked=%d outages=%d",
        keys,
        perKey,
        total,
        outageMillis,
        inversions.get(),
        total - effects(),
        transport.sent(),
        transport.failures(),
        stats.finished(),
        stats.duplicates(),
        parkedRows(),
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
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger batched = new AtomicInteger();
    AtomicInteger single = new AtomicInteger();
    Transport counting =
        new BatchTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            single.incrementAndGet();
            rabbit.send(envelope);
          }

          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            batches.incrementAndGet();
            batched.addAndGet(batch.size());
            rabbit.sendBatch(batch);
          }
        };
    Dispatcher dispatcher = started(dispatcher(counting).maxAttempts(2));

    int committed = write(n, 8, i -> false, dispatcher);
    assertEquals(n, committed);
    int routable = n - expectedParked;
    Await.until(
        WAIT,
        routable + " effects and " + expectedParked + " parked",
        () ->
            consumer.stats().handled() >= routable
                && parkedRows() == expectedParked
                && outboxRows() == expectedParked);
    dispatcher.close();

    RabbitMqConsumer.Stats stats = consumer.stats();
    assertEquals(routable, effects(), "effects");
    assertEquals(
        routable, Sql.count(ds, "SELECT COUNT(DISTINCT event_id) FROM e2e_effects"), "distinct");
    assertEquals(routable, stats.handled());
    assertEquals(0, stats.duplicates(), "inbox hits");
    assertEquals(expectedParked, events.parked.get(), "parked events");
    assertEquals(0, events.outages.get(), "outages");
    assertEquals(0, single.get(), "envelopes sent one by one");
    assertEquals(routable + 2 * expectedParked, batched.get(), "envelopes handed over in batches");
    assertEquals(0, RabbitMq.messages(queue), "left in the queue");
    report(
        "batch hand-off",
        "added=%d batches=%d envelopesInBatches=%d delivered=%d effects=%d inboxHits=%d parked=%d"
            + " outages=%d",
        n,
        batches.get(),
        batched.get(),
        stats.finished(),
        effects(),
        stats.duplicates(),
        parkedRows(),
        events.outages.get());
  }

  @Test
  void transportPublishesPersistentMessagesWithTheEnvelopeAndRefusesUnroutableOnes()
      throws Exception {
    RabbitMqTransport transport = transport();
    Envelope envelope =
        new Envelope(
            "order-7:v1",
            TOPIC,
            "order-7",
            "{\"id\":7}",
            Map.of("traceparent", trace("order-7")),
            2,
            Instant.parse("2026-01-02T03:04:05Z"));
    transport.send(envelope);

    GetResponse got = RabbitMq.withChannel(ch -> ch.basicGet(queue, true));
    assertNotNull(got, "published and confirmed");
    AMQP.BasicProperties p = got.getProps();
    assertEquals("order-7:v1", p.getMessageId());
    assertEquals(TOPIC, p.getType());
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
            new Envelope("order-1", TOPIC, null, "{}", Map.of(), 1, Instant.now()));
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
    assertEquals(1, effects());
    assertEquals(1, effects("order-1"));
    report(
        "invalid envelopes",
        "delivered=%d rejected=%d deadLettered=%d effects=%d",
        stats.finished(),
        stats.rejected(),
        RabbitMq.ready(RabbitMq.dead(queue)),
        effects());
  }

  // ---------------------------------------------------------------------------------------------

  private RabbitMqTransport transport() {
    return register(
        RabbitMqTransport.builder(RabbitMq.factory()).routingKey(envelope -> queue).build());
  }

  private RabbitMqConsumer consumer(int channels, int prefetch) throws Exception {
    return consumer(channels, prefetch, ConsumerProcess.effects("test"));
  }

  private RabbitMqConsumer consumer(int channels, int prefetch, RabbitMqConsumer.Handler handler)
      throws Exception {
    return register(
        RabbitMqConsumer.builder(RabbitMq.factory(), ds, inbox)
            .queue(queue)
            .name(CONSUMER)
            .channels(channels)
            .prefetch(prefetch)
            .requeueDelay(Duration.ofMillis(50))
            .handler(handler)
            .build()
            .start());
  }

  private Dispatcher.Builder dispatcher(Transport transport) {
    return Dispatcher.builder(ds)
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .batchSize(100)
        .concurrency(32)
        .pollInterval(Duration.ofMillis(50))
        .backoff(Backoff.fixed(Duration.ofMillis(200)))
        .lease(Duration.ofSeconds(30))
        .shutdownTimeout(Duration.ofSeconds(10))
        .listener(events);
  }

  private <T extends AutoCloseable> T register(T closeable) {
    closeAfter.add(closeable);
    return closeable;
  }

  /** One business transaction's writes: the order and its event, atomically. */
  private void addOrder(Connection c, String id) throws Exception {
    addOrder(c, id, id);
  }

  private void addOrder(Connection c, String id, String key) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO e2e_orders (event_id, amount) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, id.length());
      ps.executeUpdate();
    }
    assertTrue(
        outbox.add(
            c,
            Message.of(TOPIC, payload(id)).eventId(id).key(key).header("traceparent", trace(id))));
  }

  private static String payload(String id) {
    return "{\"order\":\"" + id + "\"}";
  }

  private static String trace(String id) {
    return "00-" + String.format("%032x", id.hashCode() & 0xffffffffL) + "-00f067aa0ba902b7-01";
  }

  /** {@code total} one-order transactions from {@code writers} threads; returns how many commit. */
  private int write(int total, int writers, IntPredicate rollsBack, Dispatcher dispatcher)
      throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    AtomicInteger committed = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                        String id = "order-" + i;
                        if (rollsBack.test(i)) {
                          Sql.rollback(ds, c -> addOrder(c, id));
                        } else {
                          Sql.commit(ds, c -> addOrder(c, id));
                          committed.incrementAndGet();
                          dispatcher.wakeUp();
                        }
                      }
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(errors.isEmpty(), () -> "writers failed: " + errors);
    return committed.get();
  }

  /** Effects = the committed orders, each exactly once; none for anything else. */
  private void assertEffectsExactlyOnce(int committed) {
    assertEquals(committed, Sql.count(ds, "SELECT COUNT(*) FROM e2e_orders"), "committed orders");
    assertEquals(committed, effects(), "effects");
    assertEquals(
        committed,
        Sql.count(ds, "SELECT COUNT(DISTINCT event_id) FROM e2e_effects"),
        "distinct effects");
    assertEquals(
        0,
        Sql.count(
            ds,
            "SELECT COUNT(*) FROM e2e_effects e WHERE NOT EXISTS"
                + " (SELECT 1 FROM e2e_orders o WHERE o.event_id = e.event_id)"),
        "effects of events that were never committed");
  }

  private long effects() {
    return Sql.count(ds, "SELECT COUNT(*) FROM e2e_effects");
  }

  private long effects(String eventId) {
    return Sql.count(ds, "SELECT COUNT(*) FROM e2e_effects WHERE event_id = ?", eventId);
  }

  private List<String> effectIds() throws Exception {
    List<String> ids = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT event_id FROM e2e_effects")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  private long outboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }

  private long parkedRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2");
  }

  private long inboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_inbox WHERE consumer = ?", CONSUMER);
  }

  private void report(String test, String format, Object... args) {
    System.out.printf(
        "[e2e %s] %s: %s in %.1f s%n",
        db.database(), test, String.format(format, args), (System.nanoTime() - startedNanos) / 1e9);
  }
}

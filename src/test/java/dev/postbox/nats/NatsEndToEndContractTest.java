package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.DatabaseTest;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.Inbox;
import dev.postbox.Outbox;
import dev.postbox.RejectedMessageException;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Outbox → NATS JetStream → consumer with the inbox, end to end on a real database and a {@code
 * nats-server} this class runs as a child process (so a test can stop it and start it again):
 * business transactions add events, a dispatcher publishes them with {@link NatsTransport}, a
 * {@link NatsConsumer} applies each one's side effect (a row in {@code e2e_effects}) in the inbox's
 * transaction. Every test uses its own stream, deletes it after, and prints one line with the
 * counts it saw. Subclasses only say which database.
 */
public abstract class NatsEndToEndContractTest extends DatabaseTest {
  private static final String CONSUMER = "e2e-orders";
  private static final Duration WAIT = Duration.ofSeconds(Long.getLong("nats.waitSeconds", 180));
  private static final Duration ACK_WAIT = Duration.ofSeconds(3);
  private static final int PARTITIONS = 4;
  private static final AtomicInteger STREAMS = new AtomicInteger();

  private final Outbox outbox = Outbox.builder().build();
  private final Inbox inbox = Inbox.builder().build();
  private final List<AutoCloseable> closeAfter = new CopyOnWriteArrayList<>();
  private Ledger orders;
  private NatsServer server;
  private Connection admin;
  private JetStreamManagement jsm;
  private DispatchEvents events;
  private String stream;
  private String prefix;
  private long startedNanos;

  @BeforeAll
  void startServer() throws Exception {
    server = NatsServer.start();
    admin = server.connectConsumer("postbox-e2e-admin");
    jsm = admin.jetStreamManagement();
    orders = new Ledger(ds, outbox);
  }

  @AfterAll
  void stopServer() throws Exception {
    try {
      orders.drop();
      if (admin != null) {
        admin.close();
      }
    } finally {
      if (server != null) {
        server.close();
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
    orders.create();
  }

  @AfterEach
  void closeAndDeleteStream() throws Exception {
    for (AutoCloseable c : closeAfter.reversed()) {
      c.close();
    }
    closeAfter.clear();
    jsm.deleteStream(stream);
  }

  @Test
  void tenThousandEventsTenPercentRolledBackAreConsumedOnceInboxHitsEqualDuplicates()
      throws Exception {
    int added = Integer.getInteger("nats.events", 10_000);
    // every 100th committed event's first delivery is not acked, as if the consumer died between
    // its commit and its ack: JetStream redelivers it after ack_wait and the inbox absorbs it
    Map<String, Boolean> withheld = new ConcurrentHashMap<>();
    NatsConsumer consumer =
        consumer(
            "all",
            prefix + ".>",
            1_000,
            4,
            Ledger.effects("test"),
            e -> !e.eventId().endsWith("50") || withheld.put(e.eventId(), true) != null);
    NatsTransport nats = transport();
    CountingTransport transport = new CountingTransport(nats);
    Dispatcher dispatcher = started(dispatcher(transport));

    IntPredicate rollsBack = i -> i % 10 == 9;
    int committed = orders.write(added, 8, rollsBack, dispatcher);
    assertEquals(added - added / 10, committed);
    Await.until(
        WAIT,
        committed + " effects",
        () -> consumer.stats().handled() >= committed && orders.outboxRows() == 0);
    // the producer side of duplicates: 100 events sent again, inside the duplicate window
    int resent = 0;
    for (int i = 0; i < added && resent < 100; i++) {
      if (!rollsBack.test(i)) {
        String id = "order-" + i;
        nats.send(
            new Envelope(
                id, Ledger.TOPIC, id, Ledger.payload(id), Map.of("traceparent", "x"), 2, null));
        resent++;
      }
    }
    Await.until(
        WAIT,
        "every withheld ack redelivered and absorbed",
        () -> consumer.stats().duplicates() >= withheld.size() && pending("all") == 0);
    dispatcher.close();

    NatsConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(committed);
    assertEquals(committed, transport.sent(), "published by the dispatcher");
    assertEquals(resent, nats.duplicates(), "re-sends dropped by the duplicate window");
    assertEquals(committed, messages(), "messages in the stream");
    assertEquals(added / 100, withheld.size(), "acks withheld");
    assertEquals(withheld.size(), stats.duplicates(), "inbox hits = duplicate deliveries");
    assertEquals(withheld.size(), stats.redelivered(), "redeliveries");
    assertEquals(committed, stats.handled());
    assertEquals(committed, orders.inboxRows(CONSUMER));
    assertEquals(0, orders.parkedRows());
    report(
        "10k events, 10% rolled back",
        "added=%d committed=%d rolledBack=%d published=%d inStream=%d resent=%d"
            + " droppedByDuplicateWindow=%d delivered=%d acksWithheld=%d redelivered=%d"
            + " effects=%d inboxHits=%d failed=%d parked=%d",
        added,
        committed,
        added - committed,
        transport.sent(),
        messages(),
        resent,
        nats.duplicates(),
        stats.finished(),
        withheld.size(),
        stats.redelivered(),
        orders.effects(),
        stats.duplicates(),
        stats.failed(),
        orders.parkedRows());
  }

  @Test
  void dispatcherKilledMidRunLosesNothingAndItsInFlightSendsAreDroppedAsDuplicates()
      throws Exception {
    NatsConsumer consumer =
        consumer("all", prefix + ".>", 1_000, 4, Ledger.effects("test"), e -> true);
    // a backlog, so the kill lands while claims are being sent, and a steady stream after it
    int backlog = 3_000;
    for (int from = 0; from < backlog; from += 100) {
      int first = from;
      Sql.commit(
          ds,
          c -> {
            for (int i = first; i < first + 100; i++) {
              orders.addOrder(c, "backlog-" + i, "backlog-" + i);
            }
          });
    }
    Writer writer = new Writer(20, Duration.ofMillis(20), null);
    String instance = "nats-child-" + UUID.randomUUID();
    Path log = Files.createTempFile("postbox-nats-dispatcher-", ".log");
    Process child =
        NatsDispatcherProcess.start(
            (HikariDataSource) ds, server.url(), prefix, PARTITIONS, instance, log);
    long inFlight;
    long consumedAtKill;
    long publishedAtKill;
    NatsTransport nats;
    CountingTransport transport;
    try {
      NatsDispatcherProcess.awaitReady(child, log);
      Await.until(WAIT, "1,000 published before the kill", () -> messages() >= 1_000);
      NatsDispatcherProcess.kill9(child);
      consumedAtKill = orders.effects();
      publishedAtKill = messages();
      inFlight = orders.leasedBy(instance);
      // a replacement takes the unleased rows at once and the dead one's when their lease ends
      nats = transport();
      transport = new CountingTransport(nats);
      Dispatcher replacement = started(dispatcher(transport));
      writer.dispatcher = replacement;
      Await.until(WAIT, "the replacement publishing", () -> transport.sent() >= 500);
    } finally {
      child.destroyForcibly();
      writer.stop();
      Files.deleteIfExists(log);
    }
    int total = backlog + writer.committed();
    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= total && orders.outboxRows() == 0);
    Await.until(WAIT, "the consumer acked everything", () -> pending("all") == 0);

    NatsConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(total);
    assertEquals(total, messages(), "messages in the stream: no duplicate stored");
    assertTrue(
        nats.duplicates() <= inFlight,
        "re-sends " + nats.duplicates() + " ≤ in flight at the kill " + inFlight);
    assertEquals(stats.redelivered(), stats.duplicates(), "inbox hits = redeliveries");
    assertEquals(0, orders.parkedRows(), "parked");
    report(
        "dispatcher kill -9 mid-run",
        "committed=%d (backlog=%d) publishedAtKill=%d appliedAtKill=%d inFlightAtKill=%d replacementPublished=%d"
            + " resentDroppedByDuplicateWindow=%d inStream=%d lost=%d delivered=%d effects=%d"
            + " inboxHits=%d parked=%d",
        total,
        backlog,
        publishedAtKill,
        consumedAtKill,
        inFlight,
        transport.sent(),
        nats.duplicates(),
        messages(),
        total - orders.distinctEffects(),
        stats.finished(),
        orders.effects(),
        stats.duplicates(),
        orders.parkedRows());
  }

  /**
   * The server stopped (SIGTERM) for 10 s and started again on the same port and store while events
   * keep being committed. In {@code -Plong}: the outage alone takes 10 s.
   */
  @Test
  @Tag("long")
  void serverStoppedTenSecondsMidRunParksNothingAndLosesNothing() throws Exception {
    NatsConsumer consumer =
        consumer("all", prefix + ".>", 1_000, 4, Ledger.effects("test"), e -> true);
    NatsTransport nats = transport();
    CountingTransport transport = new CountingTransport(nats);
    Dispatcher dispatcher = started(dispatcher(transport));
    Writer writer = new Writer(20, Duration.ofMillis(50), dispatcher);
    long outageMillis;
    long backNanos;
    int committedBefore;
    int committedDuring;
    try {
      Await.until(WAIT, "some deliveries before the outage", () -> orders.effects() >= 200);
      committedBefore = writer.committed();
      outageMillis = serverDown(() -> events.outages.get() > 0);
      backNanos = System.nanoTime();
      committedDuring = writer.committed() - committedBefore;
      Await.until(WAIT, "dispatch resumed", () -> events.recoveries.get() > 0);
    } finally {
      writer.stop();
    }
    int total = writer.committed();
    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= total && orders.outboxRows() == 0);
    long appliedMillis = (System.nanoTime() - backNanos) / 1_000_000;
    Await.until(WAIT, "the consumer acked everything", () -> pending("all") == 0);
    dispatcher.close();

    NatsConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(total);
    assertEquals(total, messages(), "messages in the stream: no duplicate stored");
    assertEquals(0, orders.parkedRows(), "parked");
    assertEquals(0, events.parked.get(), "parked events");
    assertTrue(events.outages.get() >= 1, "outage detected");
    assertEquals(total, stats.handled());
    assertEquals(stats.redelivered(), stats.duplicates(), "inbox hits = redeliveries");
    assertEquals(total, orders.inboxRows(CONSUMER));
    report(
        "server stopped 10 s",
        "committed=%d (before=%d, while down≈%d) outage=%d ms, dispatch resumed %d ms and all"
            + " applied %d ms after the server was back; published=%d sendFailures=%d"
            + " droppedByDuplicateWindow=%d inStream=%d delivered=%d redelivered=%d effects=%d"
            + " inboxHits=%d lost=%d parked=%d outages=%d",
        total,
        committedBefore,
        committedDuring,
        outageMillis,
        (events.recoveredNanos - backNanos) / 1_000_000,
        appliedMillis,
        transport.sent(),
        transport.failures(),
        nats.duplicates(),
        messages(),
        stats.finished(),
        stats.redelivered(),
        orders.effects(),
        stats.duplicates(),
        total - orders.distinctEffects(),
        orders.parkedRows(),
        events.outages.get());
  }

  /**
   * 200 keys × 50 events, each key written by one thread in sequence, dispatched in key order by a
   * dispatcher JVM that is killed with {@code kill -9} mid-run and replaced; then the server is
   * stopped for 10 s. Subjects partition the keys four ways, each partition read by a strictly
   * ordered consumer (max_ack_pending 1) whose handler checks, per key, that every event it applies
   * for the first time is the next in sequence.
   */
  @Test
  void perKeyOrderHoldsAcrossADispatcherKill() throws Exception {
    orderedRun(false);
  }

  /**
   * As above, then the server is stopped for 10 s. In {@code -Plong}: the outage alone takes 10 s.
   * Named after what broke: with jnats 2.25.1 about one restart in three left a client connection
   * that reported CONNECTED but received nothing more, and the run stalled (jnats 2.26.2 and a 5 s
   * {@link NatsServer#PING_INTERVAL ping interval} fixed it).
   */
  @Test
  @Tag("long")
  void perKeyOrderHoldsAcrossADispatcherKillAndAServerStop() throws Exception {
    orderedRun(true);
  }

  private void orderedRun(boolean stopServer) throws Exception {
    int keys = Integer.getInteger("nats.keys", 200);
    int perKey = Integer.getInteger("nats.perKey", 50);
    Map<String, Integer> lastApplied = new ConcurrentHashMap<>();
    AtomicInteger inversions = new AtomicInteger();
    NatsConsumer.Handler effects = Ledger.effects("test");
    NatsConsumer.Handler checking =
        (tx, envelope) -> {
          effects.handle(tx, envelope);
          int seq = Integer.parseInt(envelope.eventId().substring(envelope.key().length() + 1));
          Integer last = lastApplied.put(envelope.key(), seq);
          if (seq != (last == null ? 0 : last + 1)) {
            inversions.incrementAndGet();
          }
        };
    List<NatsConsumer> consumers = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      consumers.add(consumer("p" + p, prefix + "." + p, 1, 1, checking, e -> true));
    }
    String instance = "nats-child-" + UUID.randomUUID();
    Path log = Files.createTempFile("postbox-nats-dispatcher-", ".log");
    Process child =
        NatsDispatcherProcess.start(
            (HikariDataSource) ds, server.url(), prefix, PARTITIONS, instance, log);
    KeyWriters writers = null;
    long inFlight;
    long outageMillis;
    NatsTransport nats;
    CountingTransport transport;
    try {
      NatsDispatcherProcess.awaitReady(child, log);
      writers = new KeyWriters(keys, perKey, Duration.ofMillis(200));
      KeyWriters w = writers;
      Await.until(WAIT, "2,000 published before the kill", () -> messages() >= 2_000);
      NatsDispatcherProcess.kill9(child);
      inFlight = orders.leasedBy(instance);
      nats = transport();
      transport = new CountingTransport(nats);
      Dispatcher replacement = started(dispatcher(transport));
      w.dispatcher = replacement;
      Await.until(WAIT, "the replacement publishing", () -> transport.sent() >= 1_000);
      outageMillis = stopServer ? serverDown(() -> events.outages.get() > 0) : 0;
    } finally {
      child.destroyForcibly();
      Files.deleteIfExists(log);
      if (writers != null) {
        writers.join();
      }
    }
    int total = keys * perKey;
    try {
      Await.until(
          WAIT,
          "every committed event applied",
          () -> sum(consumers).handled() >= total && orders.outboxRows() == 0);
    } catch (AssertionError e) {
      StringBuilder state = new StringBuilder();
      for (int p = 0; p < PARTITIONS; p++) {
        var info = jsm.getConsumerInfo(stream, "p" + p);
        state.append(
            String.format(
                " p%d: %s pending=%d ackPending=%d redelivered=%d waiting=%d;",
                p,
                consumers.get(p).stats(),
                info.getNumPending(),
                info.getNumAckPending(),
                info.getRedelivered(),
                info.getNumWaiting()));
      }
      throw new AssertionError(
          e.getMessage()
              + ": outbox="
              + orders.outboxRows()
              + " inStream="
              + messages()
              + " effects="
              + orders.effects()
              + state,
          e);
    }

    NatsConsumer.Stats stats = sum(consumers);
    orders.assertEffectsExactlyOnce(total);
    assertEquals(0, inversions.get(), "per-key inversions at the consumers");
    assertEquals(keys, lastApplied.size(), "keys seen");
    for (Integer last : lastApplied.values()) {
      assertEquals(perKey - 1, last, "each key's last event applied last");
    }
    assertEquals(total, messages(), "messages in the stream: no duplicate stored");
    assertEquals(0, orders.parkedRows(), "parked");
    assertTrue(!stopServer || events.outages.get() >= 1, "outage detected");
    report(
        stopServer
            ? "ordered, dispatcher kill -9 and server stopped 10 s"
            : "ordered, dispatcher kill -9",
        "keys=%d perKey=%d committed=%d inFlightAtKill=%d outage=%d ms inversions=%d lost=%d"
            + " replacementPublished=%d sendFailures=%d droppedByDuplicateWindow=%d inStream=%d"
            + " delivered=%d redelivered=%d inboxHits=%d parked=%d outages=%d",
        keys,
        perKey,
        total,
        inFlight,
        outageMillis,
        inversions.get(),
        total - orders.distinctEffects(),
        transport.sent(),
        transport.failures(),
        nats.duplicates(),
        messages(),
        stats.finished(),
        stats.redelivered(),
        stats.duplicates(),
        orders.parkedRows(),
        events.outages.get());
  }

  @Test
  void transportCarriesTheEnvelopeAndRejectsWhatNoStreamTakesOrIsTooLarge() throws Exception {
    NatsTransport nats = transport();
    Envelope envelope =
        new Envelope(
            "order-7:v1",
            Ledger.TOPIC,
            "order-7",
            "{\"id\":7}",
            Map.of("traceparent", Ledger.trace("order-7")),
            2,
            Instant.parse("2026-01-02T03:04:05Z"));
    nats.send(envelope);
    nats.send(envelope); // inside the duplicate window: acked as a duplicate, not stored again

    JetStreamSubscription sub =
        admin.jetStream().subscribe(null, PullSubscribeOptions.bind(stream, pullCheck()));
    List<Message> got = sub.fetch(10, Duration.ofSeconds(2));
    assertEquals(1, got.size(), "stored once");
    Message m = got.getFirst();
    assertEquals(NatsTransport.keyPartitioned(prefix, PARTITIONS).apply(envelope), m.getSubject());
    assertEquals("order-7:v1", m.getHeaders().getFirst("Nats-Msg-Id"));
    assertEquals("order-7:v1", m.getHeaders().getFirst("postbox-event-id"));
    assertEquals("{\"id\":7}", new String(m.getData(), StandardCharsets.UTF_8));
    assertEquals(null, NatsConsumer.problem(m.getHeaders()));
    assertEquals(envelope, NatsConsumer.envelope(m));
    assertEquals(1, nats.duplicates(), "duplicate acks");
    sub.unsubscribe();

    NatsTransport nowhere =
        NatsTransport.create(
            register(server.connect("postbox-nowhere")),
            e -> "nowhere." + stream,
            Duration.ofSeconds(2));
    RejectedMessageException noStream =
        assertThrows(RejectedMessageException.class, () -> nowhere.send(envelope));
    assertTrue(noStream.getMessage().contains("no JetStream stream"), noStream.getMessage());
    Envelope large =
        new Envelope("big-1", Ledger.TOPIC, null, "x".repeat(100_000), Map.of(), 1, null);
    RejectedMessageException tooLarge =
        assertThrows(RejectedMessageException.class, () -> nats.send(large));
    assertNotNull(tooLarge.getCause());
    report("transport", "published=1 duplicateAcked=1 noStreamRejected=1 tooLargeRejected=1");
  }

  // ---------------------------------------------------------------------------------------------

  private NatsTransport transport() throws Exception {
    Connection c = register(server.connect("postbox-transport"));
    return NatsTransport.create(
        c, NatsTransport.keyPartitioned(prefix, PARTITIONS), Duration.ofSeconds(2));
  }

  /**
   * A durable {@code name} on {@code filter} with explicit acks and the test's ack_wait, and a
   * consumer with {@code workers} pulling from it; {@code beforeAck} false withholds an ack.
   */
  private NatsConsumer consumer(
      String name,
      String filter,
      long maxAckPending,
      int workers,
      NatsConsumer.Handler handler,
      java.util.function.Predicate<Envelope> beforeAck)
      throws Exception {
    NatsServer.pullConsumer(jsm, stream, name, filter, ACK_WAIT, maxAckPending);
    Connection c = register(server.connectConsumer("postbox-consumer-" + name));
    return register(
        NatsConsumer.builder(c, ds, inbox)
            .durable(stream, name)
            .name(CONSUMER)
            .workers(workers)
            .batch(50)
            .nakDelay(Duration.ofMillis(50))
            .handler(handler)
            .beforeAck(beforeAck)
            .build()
            .start());
  }

  private Dispatcher.Builder dispatcher(Transport transport) {
    return NatsDispatcherProcess.settings(ds)
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .listener(events);
  }

  private <T extends AutoCloseable> T register(T closeable) {
    closeAfter.add(closeable);
    return closeable;
  }

  /** Messages stored in this test's stream. */
  private long messages() {
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
  private long pending(String name) {
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
  private long serverDown(java.util.function.BooleanSupplier detected) throws Exception {
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

  /** A pull consumer over the whole stream for looking at what is stored. */
  private String pullCheck() throws Exception {
    NatsServer.pullConsumer(jsm, stream, "check", prefix + ".>", ACK_WAIT, 100);
    return "check";
  }

  private static NatsConsumer.Stats sum(List<NatsConsumer> consumers) {
    NatsConsumer.Stats total = new NatsConsumer.Stats(0, 0, 0, 0, 0);
    for (NatsConsumer c : consumers) {
      total = total.plus(c.stats());
    }
    return total;
  }

  /** Commits {@code perRound} one-order transactions every {@code pause} until stopped. */
  private final class Writer {
    private final AtomicBoolean writing = new AtomicBoolean(true);
    private final AtomicInteger committed = new AtomicInteger();
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    volatile Dispatcher dispatcher;

    Writer(int perRound, Duration pause, Dispatcher dispatcher) {
      this.dispatcher = dispatcher;
      this.thread =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      while (writing.get()) {
                        int from = committed.get();
                        Sql.commit(
                            ds,
                            c -> {
                              for (int i = from; i < from + perRound; i++) {
                                orders.addOrder(c, "order-" + i, "order-" + i);
                              }
                            });
                        committed.addAndGet(perRound);
                        Dispatcher d = this.dispatcher;
                        if (d != null) {
                          d.wakeUp();
                        }
                        Thread.sleep(pause);
                      }
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  });
    }

    int committed() {
      return committed.get();
    }

    void stop() throws InterruptedException {
      writing.set(false);
      thread.join();
      assertTrue(errors.isEmpty(), () -> "writer failed: " + errors);
    }
  }

  /**
   * Ten threads, each owning every tenth key, commit event {@code <key>-<seq>} for each of their
   * keys, then pause, for seq 0 to perKey - 1: a key's commit order is its sequence.
   */
  private final class KeyWriters {
    private final List<Thread> threads = new ArrayList<>();
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    volatile Dispatcher dispatcher;

    KeyWriters(int keys, int perKey, Duration pause) {
      for (int w = 0; w < 10; w++) {
        int writer = w;
        threads.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        for (int seq = 0; seq < perKey; seq++) {
                          for (int k = writer; k < keys; k += 10) {
                            String key = "key" + k;
                            String id = key + "-" + seq;
                            Sql.commit(ds, c -> orders.addOrder(c, id, key));
                          }
                          Dispatcher d = dispatcher;
                          if (d != null) {
                            d.wakeUp();
                          }
                          Thread.sleep(pause);
                        }
                      } catch (Throwable e) {
                        errors.add(e);
                      }
                    }));
      }
    }

    void join() throws InterruptedException {
      for (Thread t : threads) {
        t.join();
      }
      assertTrue(errors.isEmpty(), () -> "writers failed: " + errors);
    }
  }

  private void report(String test, String format, Object... args) {
    System.out.printf(
        "[e2e nats %s] %s: %s in %.1f s%n",
        db.database(), test, String.format(format, args), (System.nanoTime() - startedNanos) / 1e9);
  }
}

package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.testing.Await;
import dev.postbox.testing.ChildProcess;
import dev.postbox.testing.CountingTransport;
import dev.postbox.testing.OrderLedger;
import dev.postbox.testing.Sql;
import dev.postbox.testing.SteadyWriter;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
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
@Tag("reliability") // mvn -B -Preliability verify
public abstract class NatsEndToEndContractTest extends NatsEndToEndFixture {
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
            OrderLedger.effects("test"),
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
                id,
                OrderLedger.TOPIC,
                id,
                OrderLedger.payload(id),
                Map.of("traceparent", "x"),
                2,
                null));
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
    assertEquals(committed, orders.inboxRows());
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
        consumer("all", prefix + ".>", 1_000, 4, OrderLedger.effects("test"), e -> true);
    // a backlog, so the kill lands while claims are being sent, and a steady stream after it
    int backlog = 3_000;
    for (int from = 0; from < backlog; from += 100) {
      int first = from;
      Sql.commit(
          ds,
          c -> {
            for (int i = first; i < first + 100; i++) {
              orders.add(c, "backlog-" + i, "backlog-" + i);
            }
          });
    }
    SteadyWriter writer = new SteadyWriter(ds, orders, 20, Duration.ofMillis(20), null);
    String instance = "nats-child-" + UUID.randomUUID();
    ChildProcess child =
        NatsDispatcherProcess.start(db, server.url(), prefix, PARTITIONS, instance);
    long inFlight;
    long consumedAtKill;
    long publishedAtKill;
    NatsTransport nats;
    CountingTransport transport;
    try {
      child.awaitLine(NatsDispatcherProcess.READY);
      Await.until(WAIT, "1,000 published before the kill", () -> messages() >= 1_000);
      child.kill();
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
      child.close();
      writer.stop();
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
   * keep being committed. In {@code -Plong} (about 17 s per database), to keep {@code mvn verify}
   * within CI's time limit.
   */
  @Test
  @Tag("long")
  void serverStoppedTenSecondsMidRunParksNothingAndLosesNothing() throws Exception {
    NatsConsumer consumer =
        consumer("all", prefix + ".>", 1_000, 4, OrderLedger.effects("test"), e -> true);
    NatsTransport nats = transport();
    CountingTransport transport = new CountingTransport(nats);
    Dispatcher dispatcher = started(dispatcher(transport));
    SteadyWriter writer = new SteadyWriter(ds, orders, 20, Duration.ofMillis(50), dispatcher);
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
    assertEquals(total, orders.inboxRows());
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
}

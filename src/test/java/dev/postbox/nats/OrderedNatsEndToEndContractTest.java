package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Dispatcher;
import dev.postbox.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Per-key order through NATS JetStream, end to end on a real database: keys written in sequence,
 * dispatched in key order across a dispatcher {@code kill -9} (and, in {@code -Plong}, a server
 * stop), read by one strictly ordered consumer per key partition that counts every inversion.
 * Subclasses only say which database.
 */
@Tag("reliability") // mvn -B -Preliability verify
public abstract class OrderedNatsEndToEndContractTest extends NatsEndToEndFixture {
  /**
   * 200 keys × 50 events, each key written by one thread in sequence, dispatched in key order by a
   * dispatcher JVM that is killed with {@code kill -9} mid-run and replaced. Subjects partition the
   * keys four ways, each partition read by a strictly ordered consumer (max_ack_pending 1) whose
   * handler checks, per key, that every event it applies for the first time is the next in
   * sequence.
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
      writers = new KeyWriters(ds, orders, keys, perKey, Duration.ofMillis(200));
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
}

package dev.postbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.ChildProcess;
import dev.postbox.testing.CountingBatchTransport;
import dev.postbox.testing.KeySequenceCheck;
import dev.postbox.testing.KeyWriters;
import dev.postbox.testing.OrderLedger;
import dev.postbox.testing.Sql;
import dev.postbox.testing.SteadyWriter;
import java.time.Duration;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Outbox → Kafka → consumer with the inbox, end to end on a real single-node KRaft broker ({@link
 * KafkaBroker}, one per class) and a real database: business transactions add events, a dispatcher
 * produces them with {@link KafkaTransport} to a topic of 8 partitions (one topic per test), a
 * {@link KafkaInboxConsumer} applies each one's side effect in the inbox's transaction. Every test
 * prints one line with the counts it saw. Sizes scale with {@code -Dkafka.events}, {@code
 * -Dkafka.keys}, {@code -Dkafka.perKey} and {@code -Dkafka.outageMillis}; the defaults are the
 * issue's. Subclasses only say which database.
 */
@Tag("reliability") // mvn -B -Preliability verify
public abstract class KafkaEndToEndContractTest extends KafkaEndToEndFixture {
  private static final int EVENTS = Integer.getInteger("kafka.events", 10_000);
  private static final int KEYS = Integer.getInteger("kafka.keys", 200);
  private static final int PER_KEY = Integer.getInteger("kafka.perKey", 50);

  @Test
  void tenThousandEventsTenPercentRolledBackAreConsumedOnceEach() throws Exception {
    KafkaInboxConsumer consumer = consumer(4, OrderLedger.effects("test"));
    // one message per send (a method reference is no BatchTransport); the other tests
    // hand whole claims to sendBatch
    Transport oneByOne = transport()::send;
    Dispatcher dispatcher = started(dispatcher(oneByOne));

    // business transactions from 8 writers while dispatch runs; every tenth rolls back
    IntPredicate rollsBack = i -> i % 10 == 9;
    int committed = orders.write(EVENTS, 8, rollsBack, dispatcher);
    assertEquals(EVENTS - EVENTS / 10, committed);

    long records = drained(consumer, committed, dispatcher);

    KafkaInboxConsumer.Stats stats = consumer.stats();
    assertExactlyOnce(committed, records, stats);
    assertEquals(committed, events.delivered.get(), "sent");
    assertEquals(committed, stats.handled());
    assertEquals(0, stats.rejected());
    assertEquals(committed, orders.inboxRows());
    report(
        "10k events, 10% rolled back, send",
        "added=%d committed=%d rolledBack=%d sent=%d records=%d effects=%d inboxHits=%d"
            + " failed=%d parked=%d",
        EVENTS,
        committed,
        EVENTS - committed,
        events.delivered.get(),
        records,
        orders.effects(),
        stats.duplicates(),
        events.failed.get(),
        orders.parkedRows());
  }

  @Test
  void dispatcherKilledMidRunLosesNothingAndDuplicatesAtMostWhatWasInFlight() throws Exception {
    int n = EVENTS / 2;
    orders.write(n, 8, i -> false, null);
    KafkaInboxConsumer consumer = consumer(4, OrderLedger.effects("test"));
    ChildProcess child =
        register(KafkaDispatcherProcess.start(broker.bootstrapServers(), "e2e-child", db));
    child.awaitLine(KafkaDispatcherProcess.READY);
    Await.until(WAIT, "a third sent by the child", () -> orders.outboxRows() <= n - n / 3);
    child.kill();
    long leftAtKill = orders.outboxRows();
    long inFlight = orders.leasedBy("e2e-child");
    long recordsAtKill = broker.records(topic);

    // another dispatcher takes over once the killed one's leases run out
    Dispatcher dispatcher = started(dispatcher(transport()));
    long records = drained(consumer, n, dispatcher);

    KafkaInboxConsumer.Stats stats = consumer.stats();
    assertExactlyOnce(n, records, stats);
    long duplicates = records - n;
    assertTrue(duplicates <= inFlight, duplicates + " duplicates > " + inFlight + " in flight");
    report(
        "dispatcher kill -9",
        "committed=%d leftAtKill=%d inFlightAtKill=%d recordsAtKill=%d records=%d lost=%d"
            + " duplicates=%d inboxHits=%d parked=%d",
        n,
        leftAtKill,
        inFlight,
        recordsAtKill,
        records,
        n - orders.effects(),
        duplicates,
        stats.duplicates(),
        orders.parkedRows());
  }

  @Test
  void brokerStoppedMidRunParksNothingAndLosesNothing() throws Exception {
    KafkaInboxConsumer consumer = consumer(2, OrderLedger.effects("test"));
    Dispatcher dispatcher = started(dispatcher(transport()));

    // a steady stream of business transactions before, during and after the outage
    SteadyWriter writer = new SteadyWriter(ds, orders, 20, Duration.ofMillis(50), dispatcher);
    long outageMillis;
    int committedBefore;
    int committedDuring;
    try {
      Await.until(WAIT, "some events applied before the outage", () -> orders.effects() >= 200);
      committedBefore = writer.committed();
      outageMillis = outage();
      committedDuring = writer.committed() - committedBefore;
      Await.until(WAIT, "some events sent after the outage", () -> events.recoveries.get() > 0);
    } finally {
      writer.stop();
    }
    int total = writer.committed();

    long records = drained(consumer, total, dispatcher);

    KafkaInboxConsumer.Stats stats = consumer.stats();
    assertExactlyOnce(total, records, stats);
    assertEquals(0, events.parked.get(), "parked events");
    assertTrue(events.outages.get() >= 1, "outage detected");
    report(
        "broker stopped " + OUTAGE_MILLIS / 1000 + " s",
        "committed=%d (before=%d during=%d) outage=%d ms records=%d sendFailures=%d lost=%d"
            + " inboxHits=%d parked=%d outages=%d",
        total,
        committedBefore,
        committedDuring,
        outageMillis,
        records,
        events.failed.get(),
        total - orders.effects(),
        stats.duplicates(),
        orders.parkedRows(),
        events.outages.get());
  }

  /**
   * {@code keys × perKey} events over 8 partitions with the outbox ordered by key (the default),
   * each key written by one thread in sequence; a consumer checks per key that every event it
   * applies for the first time is the next in sequence. A dispatcher in its own JVM is killed
   * mid-run and an in-process one takes over; then the broker is stopped and started again.
   */
  @Test
  void orderedRunKeepsPerKeyOrderAcrossADispatcherKillAndABrokerStop() throws Exception {
    int total = KEYS * PER_KEY;
    KeySequenceCheck order = new KeySequenceCheck(OrderLedger.effects("test"));
    KafkaInboxConsumer consumer = consumer(4, order);
    ChildProcess child =
        register(KafkaDispatcherProcess.start(broker.bootstrapServers(), "e2e-child", db));
    child.awaitLine(KafkaDispatcherProcess.READY);
    KeyWriters writers = new KeyWriters(ds, orders, KEYS, PER_KEY, Duration.ZERO, null);
    long inFlight;
    long outageMillis;
    Dispatcher dispatcher;
    try {
      Await.until(WAIT, "a fifth sent by the child", () -> broker.records(topic) >= total / 5);
      child.kill();
      inFlight = orders.leasedBy("e2e-child");
      dispatcher = started(dispatcher(transport()));
      Await.until(WAIT, "half sent", () -> broker.records(topic) >= total / 2);
      outageMillis = outage();
    } finally {
      writers.join();
    }
    long records = drained(consumer, total, dispatcher);

    KafkaInboxConsumer.Stats stats = consumer.stats();
    assertExactlyOnce(total, records, stats);
    order.assertInOrder(KEYS, PER_KEY, "consumer");
    assertTrue(events.outages.get() >= 1, "outage detected");
    report(
        "ordered, dispatcher kill -9 and broker stopped " + OUTAGE_MILLIS / 1000 + " s",
        "keys=%d perKey=%d partitions=%d committed=%d inFlightAtKill=%d outage=%d ms"
            + " inversions=%d lost=%d records=%d inboxHits=%d sendFailures=%d parked=%d",
        KEYS,
        PER_KEY,
        PARTITIONS,
        total,
        inFlight,
        outageMillis,
        order.inversions(),
        total - orders.effects(),
        records,
        stats.duplicates(),
        events.failed.get(),
        orders.parkedRows());
  }

  /**
   * The batch hand-off: each claim reaches {@link KafkaTransport#sendBatch} whole and is pipelined
   * to the broker; the records larger than the broker's {@code message.max.bytes} fail alone, as
   * rejected messages inside a {@link dev.postbox.BatchSendException}, and are parked after their 2
   * attempts while the rest of their batches count as sent.
   */
  @Test
  void batchHandOffSendsWholeClaimsAndParksOnlyTheRecordsTooLarge() throws Exception {
    int n = EVENTS / 5;
    int tooLarge = n / 100;
    KafkaInboxConsumer consumer = consumer(4, OrderLedger.effects("test"));
    CountingBatchTransport counting = new CountingBatchTransport(transport());
    Dispatcher dispatcher = started(dispatcher(counting).maxAttempts(2));
    for (int i = 0; i < tooLarge; i++) {
      String id = "large-" + i;
      Sql.commit(ds, c -> orders.addEventOnly(c, id, KafkaBroker.MAX_MESSAGE_BYTES * 3 / 2));
    }
    assertEquals(n, orders.write(n, 8, i -> false, dispatcher));
    Await.until(
        WAIT,
        n + " applied and " + tooLarge + " parked",
        () ->
            consumer.stats().handled() >= n
                && orders.parkedRows() == tooLarge
                && orders.outboxRows() == tooLarge);
    dispatcher.close();

    KafkaInboxConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(n);
    assertEquals(n, broker.records(topic), "records");
    assertEquals(0, stats.duplicates(), "inbox hits");
    assertEquals(tooLarge, events.parked.get(), "parked events");
    assertEquals(0, events.outages.get(), "outages");
    assertEquals(0, counting.single.get(), "envelopes sent one by one");
    assertEquals(n + 2 * tooLarge, counting.batched.get(), "envelopes handed over in batches");
    report(
        "batch hand-off",
        "added=%d tooLarge=%d batches=%d envelopesInBatches=%d records=%d effects=%d inboxHits=%d"
            + " parked=%d outages=%d",
        n + tooLarge,
        tooLarge,
        counting.batches.get(),
        counting.batched.get(),
        broker.records(topic),
        orders.effects(),
        stats.duplicates(),
        orders.parkedRows(),
        events.outages.get());
  }
}

package dev.postbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.BatchTransport;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
    KafkaInboxConsumer consumer = consumer(4, Orders.effects("test"));
    // one message per send (a method reference is no BatchTransport); the other tests
    // hand whole claims to sendBatch
    Transport oneByOne = transport()::send;
    Dispatcher dispatcher = started(dispatcher(oneByOne));

    // business transactions from 8 writers while dispatch runs; every tenth rolls back
    IntPredicate rollsBack = i -> i % 10 == 9;
    int committed = orders.write(EVENTS, 8, rollsBack, dispatcher);
    assertEquals(EVENTS - EVENTS / 10, committed);

    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= committed && orders.outboxRows() == 0);
    long records = broker.records(topic);
    Await.until(WAIT, "every record consumed", () -> consumer.stats().finished() >= records);
    dispatcher.close();

    KafkaInboxConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(committed);
    assertEquals(committed, events.delivered.get(), "sent");
    assertEquals(committed, stats.handled());
    assertEquals(records - committed, stats.duplicates(), "inbox hits = duplicate records");
    assertEquals(0, stats.rejected());
    assertEquals(committed, orders.inboxRows());
    assertEquals(0, orders.parkedRows());
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
    KafkaInboxConsumer consumer = consumer(4, Orders.effects("test"));
    KafkaDispatcherProcess.Running child =
        register(KafkaDispatcherProcess.start(broker.bootstrapServers(), "e2e-child", db))
            .awaitReady();
    Await.until(WAIT, "a third sent by the child", () -> orders.outboxRows() <= n - n / 3);
    child.kill();
    long leftAtKill = orders.outboxRows();
    long inFlight = orders.leasedBy("e2e-child");
    long recordsAtKill = broker.records(topic);

    // another dispatcher takes over once the killed one's leases run out
    Dispatcher dispatcher = started(dispatcher(transport()));
    Await.until(
        WAIT,
        "every event applied",
        () -> consumer.stats().handled() >= n && orders.outboxRows() == 0);
    long records = broker.records(topic);
    Await.until(WAIT, "every record consumed", () -> consumer.stats().finished() >= records);
    dispatcher.close();

    KafkaInboxConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(n);
    long duplicates = records - n;
    assertEquals(duplicates, stats.duplicates(), "inbox hits = duplicate records");
    assertTrue(duplicates <= inFlight, duplicates + " duplicates > " + inFlight + " in flight");
    assertEquals(0, orders.parkedRows());
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
    KafkaInboxConsumer consumer = consumer(2, Orders.effects("test"));
    Dispatcher dispatcher = started(dispatcher(transport()));

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
                              orders.add(c, "order-" + i, "order-" + i);
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
    int committedBefore;
    int committedDuring;
    try {
      Await.until(WAIT, "some events applied before the outage", () -> orders.effects() >= 200);
      committedBefore = committed.get();
      outageMillis = outage();
      committedDuring = committed.get() - committedBefore;
      Await.until(WAIT, "some events sent after the outage", () -> events.recoveries.get() > 0);
    } finally {
      writing.set(false);
      writer.join();
    }
    assertTrue(errors.isEmpty(), () -> "writer failed: " + errors);
    int total = committed.get();

    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= total && orders.outboxRows() == 0);
    long records = broker.records(topic);
    Await.until(WAIT, "every record consumed", () -> consumer.stats().finished() >= records);
    dispatcher.close();

    KafkaInboxConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(total);
    assertEquals(0, orders.parkedRows(), "parked");
    assertEquals(0, events.parked.get(), "parked events");
    assertTrue(events.outages.get() >= 1, "outage detected");
    assertEquals(records - total, stats.duplicates(), "inbox hits = duplicate records");
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
    Map<String, Integer> lastApplied = new ConcurrentHashMap<>();
    AtomicInteger inversions = new AtomicInteger();
    KafkaInboxConsumer.Handler effects = Orders.effects("test");
    KafkaInboxConsumer consumer =
        consumer(
            4,
            (tx, envelope) -> {
              effects.handle(tx, envelope);
              int seq = Integer.parseInt(envelope.eventId().substring(envelope.key().length() + 1));
              // the inbox lets each event through once; the next one of its key must be seq + 1
              Integer last = lastApplied.put(envelope.key(), seq);
              if (seq != (last == null ? 0 : last + 1)) {
                inversions.incrementAndGet();
              }
            });
    KafkaDispatcherProcess.Running child =
        register(KafkaDispatcherProcess.start(broker.bootstrapServers(), "e2e-child", db))
            .awaitReady();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 10; w++) {
      int writer = w;
      writers.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      for (int seq = 0; seq < PER_KEY; seq++) {
                        for (int k = writer; k < KEYS; k += 10) {
                          String key = "key" + k;
                          String id = key + "-" + seq;
                          Sql.commit(ds, c -> orders.add(c, id, key));
                        }
                      }
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }));
    }
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
      for (Thread t : writers) {
        t.join();
      }
    }
    assertTrue(errors.isEmpty(), () -> "writers failed: " + errors);
    Await.until(
        WAIT,
        "every committed event applied",
        () -> consumer.stats().handled() >= total && orders.outboxRows() == 0);
    long records = broker.records(topic);
    Await.until(WAIT, "every record consumed", () -> consumer.stats().finished() >= records);
    dispatcher.close();

    KafkaInboxConsumer.Stats stats = consumer.stats();
    orders.assertEffectsExactlyOnce(total);
    assertEquals(0, inversions.get(), "per-key inversions at the consumer");
    assertEquals(KEYS, lastApplied.size(), "keys seen");
    for (Integer last : lastApplied.values()) {
      assertEquals(PER_KEY - 1, last, "each key's last event applied last");
    }
    assertEquals(0, orders.parkedRows(), "parked");
    assertTrue(events.outages.get() >= 1, "outage detected");
    assertEquals(records - total, stats.duplicates(), "inbox hits = duplicate records");
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
        inversions.get(),
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
    KafkaInboxConsumer consumer = consumer(4, Orders.effects("test"));
    KafkaTransport kafka = transport();
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger batched = new AtomicInteger();
    AtomicInteger single = new AtomicInteger();
    Transport counting =
        new BatchTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            single.incrementAndGet();
            kafka.send(envelope);
          }

          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            batches.incrementAndGet();
            batched.addAndGet(batch.size());
            kafka.sendBatch(batch);
          }
        };
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
    assertEquals(0, single.get(), "envelopes sent one by one");
    assertEquals(n + 2 * tooLarge, batched.get(), "envelopes handed over in batches");
    report(
        "batch hand-off",
        "added=%d tooLarge=%d batches=%d envelopesInBatches=%d records=%d effects=%d inboxHits=%d"
            + " parked=%d outages=%d",
        n + tooLarge,
        tooLarge,
        batches.get(),
        batched.get(),
        broker.records(topic),
        orders.effects(),
        stats.duplicates(),
        orders.parkedRows(),
        events.outages.get());
  }
}

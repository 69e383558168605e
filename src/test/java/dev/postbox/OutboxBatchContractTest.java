package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.BatchRecordingTransport;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a transport that overrides {@link Transport#sendBatch} gets and how its failures count,
 * proven on every database.
 */
public abstract class OutboxBatchContractTest extends OutboxSuite {

  @Test
  void aBatchTransportGetsEachClaimWholeInTheOrderAddedAndEveryMessageOnce() {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      messages.add(Message.of("t", "{}").eventId(String.format("b-%03d", i)));
    }
    add(messages.toArray(Message[]::new));
    BatchRecordingTransport transport = new BatchRecordingTransport();
    started(dispatcher(transport).batchSize(100).concurrency(2));

    Await.until(WAIT, "all delivered", () -> transport.total.get() == 250 && rows() == 0);
    assertEquals(0, transport.singleSends.get(), "envelopes sent one by one");
    assertEquals(250, transport.deliveries.size(), "distinct delivered");
    assertEquals(0, transport.duplicated(), "duplicated");
    assertEquals(
        250, transport.batches.stream().mapToInt(List::size).sum(), "envelopes in batches");
    assertTrue(transport.batches.size() >= 3, "batches: " + transport.batches.size());
    for (List<Envelope> batch : transport.batches) {
      assertTrue(batch.size() <= 100, "batch of " + batch.size());
      List<String> ids = batch.stream().map(Envelope::eventId).toList();
      assertEquals(ids.stream().sorted().toList(), ids, "in the order added within a batch");
    }
  }

  @Test
  void anAddAllOf100000MessagesWithDistinctKeysStoresThemAll() {
    // on PostgreSQL the key locks of an ordered addAll may neither bind a parameter per key (the
    // protocol allows 65,535 per statement) nor take a lock per key (the server's shared lock
    // table holds some thousands for all sessions)
    int n = 100_000;
    List<Message> messages = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      messages.add(Message.of("t", "{}").key("key-" + i));
    }
    assertTrue(outbox.orderedByKey(), "the suite's outbox locks keys");
    Sql.commit(ds, c -> assertEquals(n, outbox.addAll(c, messages), "stored"));

    assertEquals(n, rows(), "rows");
    assertEquals(
        n, Sql.count(ds, "SELECT COUNT(DISTINCT msg_key) FROM postbox_outbox"), "distinct keys");
    assertEquals(
        n,
        Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 0 AND attempts = 0"),
        "pending, never attempted");
  }

  @Test
  void aBatchSendExceptionFailsOnlyTheEnvelopesItNames() throws Exception {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      messages.add(Message.of("t", "{}").eventId("p-" + i));
    }
    add(messages.toArray(Message[]::new));
    // more than Outage.THRESHOLD: were they taken as outage evidence, an outage would start
    Set<String> unroutable = Set.of("p-1", "p-3", "p-5", "p-7");
    BatchRecordingTransport transport =
        new BatchRecordingTransport() {
          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            batches.add(List.copyOf(batch));
            BatchSendException failures = new BatchSendException();
            for (Envelope e : batch) {
              if (unroutable.contains(e.eventId())) {
                failures.fail(e, new IllegalStateException("no route for " + e.eventId()));
              } else {
                send(e);
              }
            }
            if (!failures.failures().isEmpty()) {
              throw failures;
            }
          }
        };
    AtomicInteger outages = new AtomicInteger();
    AtomicInteger parkedEvents = new AtomicInteger();
    started(
        dispatcher(transport)
            .maxAttempts(2)
            .listener(
                new Listener() {
                  @Override
                  public void outageStarted(String table) {
                    outages.incrementAndGet();
                  }

                  @Override
                  public void parked(Delivery delivery, String reason) {
                    parkedEvents.incrementAndGet();
                  }
                }));

    Await.until(WAIT, "four parked, six deleted", () -> parkedEvents.get() == 4 && rows() == 4);
    assertEquals(6, transport.total.get(), "sent");
    assertEquals(6, transport.deliveries.size(), "distinct sent");
    assertEquals(0, transport.count("p-3"));
    assertEquals(0, outages.get(), "outages");
    try (Connection c = ds.getConnection()) {
      List<Parked> parked = outbox.parked(c, 10);
      assertEquals(List.of("p-1", "p-3", "p-5", "p-7"), parked.stream().map(Parked::ref).toList());
      assertEquals(2, parked.get(0).attempts());
      assertTrue(
          parked.get(0).lastError().startsWith("java.lang.IllegalStateException: no route for p-1"),
          parked.get(0).lastError());
    }
  }

  @Test
  void aBatchThatThrowsIsRetriedWholeAndNothingIsLost() {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      messages.add(Message.of("t", "{}").eventId("w-" + i));
    }
    add(messages.toArray(Message[]::new));
    AtomicInteger calls = new AtomicInteger();
    BatchRecordingTransport transport =
        new BatchRecordingTransport() {
          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            int call = calls.incrementAndGet();
            if (call == 1) {
              throw new java.io.IOException("connection refused");
            }
            if (call == 2) {
              throw new BatchSendException(); // names no envelope: the whole batch failed
            }
            super.sendBatch(batch);
          }
        };
    started(dispatcher(transport).maxAttempts(3));

    Await.until(WAIT, "all delivered", () -> transport.total.get() == 20 && rows() == 0);
    assertEquals(20, transport.deliveries.size(), "distinct sent");
    assertEquals(0, transport.duplicated(), "duplicated");
    assertTrue(calls.get() >= 3, "calls: " + calls.get());
  }
}

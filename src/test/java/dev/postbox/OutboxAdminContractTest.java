package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What an operator sees and does: stats, and parked messages listed, replayed and discarded, proven
 * on every database.
 */
public abstract class OutboxAdminContractTest extends OutboxSuite {

  @Test
  void poisonMessageIsParkedAfterExactlyMaxAttemptsThenReplayedAndDiscarded() throws Exception {
    add(
        Message.of("poison", "{}").eventId("poison-1"),
        Message.of("poison", "{}").eventId("poison-2"),
        Message.of("healthy", "{}").eventId("healthy-1"));
    AtomicBoolean cured = new AtomicBoolean();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            super.send(envelope);
            if (envelope.topic().equals("poison") && !cured.get()) {
              throw new IllegalArgumentException("cannot serialize " + envelope.eventId());
            }
          }
        };
    AtomicInteger parkedEvents = new AtomicInteger();
    started(
        dispatcher(transport)
            .maxAttempts(3)
            .listener(
                new Listener() {
                  @Override
                  public void parked(Delivery delivery, String reason) {
                    parkedEvents.incrementAndGet();
                  }
                }));

    Await.until(WAIT, "two parked", () -> parkedEvents.get() == 2);
    assertEquals(3, transport.count("poison-1"), "attempts of poison-1");
    assertEquals(3, transport.count("poison-2"), "attempts of poison-2");
    assertEquals(1, transport.count("healthy-1"));
    try (Connection c = ds.getConnection()) {
      List<Parked> parked = outbox.parked(c, 10);
      assertEquals(List.of("poison-1", "poison-2"), parked.stream().map(Parked::ref).toList());
      assertEquals(3, parked.get(0).attempts());
      assertTrue(
          parked
              .get(0)
              .lastError()
              .startsWith("java.lang.IllegalArgumentException: cannot serialize poison-1"),
          parked.get(0).lastError());
      QueueStats stats = outbox.stats(c);
      assertEquals(0, stats.pending());
      assertEquals(2, stats.parked());

      cured.set(true);
      assertTrue(outbox.replay(c, "poison-1"));
      assertFalse(outbox.replay(c, "no-such-event"));
      assertTrue(outbox.discard(c, "poison-2"));
    }
    Await.until(WAIT, "replayed delivery", () -> transport.count("poison-1") == 4 && rows() == 0);
    assertEquals(3, transport.count("poison-2"), "discarded, never sent again");
  }

  @Test
  void statsCountWithoutClaiming() throws Exception {
    add(
        Message.of("t", "{}").eventId("due-1"), Message.of("t", "{}").eventId("due-2"),
        Message.of("t", "{}").eventId("leased"), Message.of("t", "{}").eventId("parked"));
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET leased_by = 'other', available_at = "
            + Sql.nowPlusMillis(db)
            + " WHERE event_id = 'leased'",
        60_000L);
    Sql.update(ds, "UPDATE postbox_outbox SET state = 2 WHERE event_id = 'parked'");
    try (Connection c = ds.getConnection()) {
      QueueStats stats = outbox.stats(c);
      assertEquals(3, stats.pending());
      assertEquals(2, stats.due());
      assertEquals(1, stats.leased());
      assertEquals(1, stats.parked());
      assertFalse(stats.oldestPendingAge().isNegative());
      assertEquals(3, outbox.countPending(c));
    }
    assertEquals(
        1L,
        Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE leased_by IS NOT NULL"),
        "nothing claimed");
  }

  @Test
  void rowsWaitingBehindAParkedKeyAreCountedBlockedNotDue() throws Exception {
    // regression: due counted the rows a parked head keeps from being claimed
    add(
        Message.of("t", "{}").eventId("k-0").key("k"),
        Message.of("t", "{}").eventId("k-1").key("k"),
        Message.of("t", "{}").eventId("k-2").key("k"),
        Message.of("t", "{}").eventId("k-3").key("k"),
        Message.of("t", "{}").eventId("plain-1"),
        Message.of("t", "{}").eventId("plain-2"));
    Sql.update(ds, "UPDATE postbox_outbox SET state = 2 WHERE event_id = 'k-0'");
    try (Connection c = ds.getConnection()) {
      QueueStats stats = outbox.stats(c);
      assertEquals(5, stats.pending(), "pending");
      assertEquals(2, stats.due(), "due: the unkeyed rows only");
      assertEquals(1, stats.parked(), "parked");
      assertEquals(1, stats.blockedKeys(), "blocked keys");
      assertEquals(3, stats.blocked(), "blocked: the rows behind the parked head");
      assertEquals(0, stats.leased(), "leased");
      // the same table read by an outbox whose parked rows do not block their keys
      QueueStats skipping = Outbox.builder().onParked(OrderedParking.SKIP).build().stats(c);
      assertEquals(5, skipping.due(), "due when parked rows are skipped");
      assertEquals(0, skipping.blocked(), "blocked when parked rows are skipped");
    }
  }
}

package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Failing rows, the ones retried but not parked yet, as an operator lists them from the outbox and
 * the job queue, proven on every database.
 */
public abstract class FailingRowsContractTest extends OutboxSuite {
  // a second failure waits an hour: the row then stays failing while the test looks at it
  private static final Backoff SOON_THEN_AN_HOUR =
      attempt -> attempt == 1 ? Duration.ofMillis(10) : Duration.ofHours(1);

  private final Jobs jobs = Jobs.builder().build();

  /** A listener counting failed attempts. */
  private static Listener countingFailures(AtomicInteger failures) {
    return new Listener() {
      @Override
      public void failed(Delivery delivery, Throwable error, Duration retryIn) {
        failures.incrementAndGet();
      }
    };
  }

  @Test
  void aMessageThatFailedTwiceIsListedWithItsAttemptsLastErrorAndNextAttempt() throws Exception {
    add(
        Message.of("orders", "{}").eventId("f-1").key("order-7"),
        Message.of("orders", "{}").eventId("ok-1"),
        Message.of("orders", "{}").eventId("ok-2"));
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            super.send(envelope);
            if (envelope.eventId().equals("f-1")) {
              throw new IllegalStateException("broker said no to " + envelope.eventId());
            }
          }
        };
    AtomicInteger failures = new AtomicInteger();
    started(
        dispatcher(transport)
            .backoff(SOON_THEN_AN_HOUR)
            .maxAttempts(5)
            .listener(countingFailures(failures)));

    Await.until(WAIT, "two failures, two sent", () -> failures.get() == 2 && rows() == 1);
    try (Connection c = ds.getConnection()) {
      List<Failing> failing = outbox.failing(c, 10);
      assertEquals(List.of("f-1"), failing.stream().map(Failing::ref).toList(), "failing");
      Failing f = failing.get(0);
      assertEquals("orders", f.topic());
      assertEquals("order-7", f.key());
      assertEquals(2, f.attempts(), "attempts");
      assertTrue(
          f.lastError().startsWith("java.lang.IllegalStateException: broker said no to f-1"),
          f.lastError());
      assertFalse(f.leased(), "leased");
      assertTrue(
          f.nextAttempt().isAfter(f.createdAt().plus(Duration.ofMinutes(50))),
          "next attempt after the hour's backoff: " + f);
      assertEquals(List.of(), outbox.parked(c, 10), "parked");
    }
    assertEquals(2, transport.count("f-1"), "attempts made");
  }

  @Test
  void aJobThatFailedTwiceIsListedWithItsAttemptsLastErrorAndNextAttempt() throws Exception {
    Sql.commit(
        ds,
        c ->
            jobs.enqueueAll(
                c,
                List.of(
                    Job.of("reports", "bad").dedupeKey("report-3"), Job.of("reports", "good"))));
    AtomicInteger runs = new AtomicInteger();
    JobHandler handler =
        JobHandler.of(
            "reports",
            job -> {
              if (job.payload().equals("bad")) {
                runs.incrementAndGet();
                throw new IllegalStateException("report " + job.id() + " has no data");
              }
            });
    AtomicInteger failures = new AtomicInteger();
    started(
        jobDispatcher(jobs, handler)
            .backoff(SOON_THEN_AN_HOUR)
            .maxAttempts(5)
            .listener(countingFailures(failures)));

    Await.until(WAIT, "two failures", () -> failures.get() == 2);
    try (Connection c = ds.getConnection()) {
      List<Failing> failing = jobs.failing(c, 10);
      assertEquals(1, failing.size(), "failing: " + failing);
      Failing f = failing.get(0);
      assertEquals(Long.toString(f.id()), f.ref());
      assertEquals("reports", f.topic());
      assertEquals("report-3", f.key(), "the dedupe key");
      assertEquals(2, f.attempts(), "attempts");
      assertTrue(
          f.lastError().startsWith("java.lang.IllegalStateException: report " + f.id()),
          f.lastError());
      assertFalse(f.leased(), "leased");
      assertTrue(
          f.nextAttempt().isAfter(f.createdAt().plus(Duration.ofMinutes(50))),
          "next attempt after the hour's backoff: " + f);
    }
    assertEquals(2, runs.get(), "runs of the failing job");
  }

  @Test
  void onlyPendingRowsThatFailedAreListedSoonestNextAttemptFirstAndLeasedOnesSaySo()
      throws Exception {
    add(
        Message.of("t", "{}").eventId("fresh"),
        Message.of("t", "{}").eventId("retry-late"),
        Message.of("t", "{}").eventId("retry-soon"),
        Message.of("t", "{}").eventId("retrying-now"),
        Message.of("t", "{}").eventId("first-attempt-now"),
        Message.of("t", "{}").eventId("replayed"),
        Message.of("t", "{}").eventId("parked"));
    String set = "UPDATE postbox_outbox SET attempts = ?, last_error = ?, leased_by = ?, ";
    String due = "available_at = " + Sql.nowPlusMillis(db) + " WHERE event_id = ?";
    Sql.update(ds, set + due, 2, "E late", null, 7_200_000L, "retry-late");
    Sql.update(ds, set + due, 1, "E soon", null, 3_600_000L, "retry-soon");
    Sql.update(ds, set + due, 3, "E now", "other", 10_800_000L, "retrying-now");
    Sql.update(ds, set + due, 1, null, "other", 60_000L, "first-attempt-now");
    Sql.update(ds, set + due, 0, "E before the replay", null, 0L, "replayed");
    Sql.update(ds, set + due, 5, "E parked", null, 0L, "parked");
    Sql.update(ds, "UPDATE postbox_outbox SET state = 2 WHERE event_id = 'parked'");

    try (Connection c = ds.getConnection()) {
      List<Failing> failing = outbox.failing(c, 10);
      assertEquals(
          List.of("retry-soon", "retry-late", "retrying-now"),
          failing.stream().map(Failing::ref).toList(),
          "failing, soonest next attempt first");
      assertEquals(
          List.of(false, false, true), failing.stream().map(Failing::leased).toList(), "leased");
      assertEquals(List.of(1, 2, 3), failing.stream().map(Failing::attempts).toList());
      assertEquals(
          List.of("E soon", "E late", "E now"), failing.stream().map(Failing::lastError).toList());
      assertEquals(
          List.of("retry-soon", "retry-late"),
          outbox.failing(c, 2).stream().map(Failing::ref).toList(),
          "limit 2");
    }
    assertEquals(
        2L,
        Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE leased_by IS NOT NULL"),
        "nothing claimed");
  }

  @Test
  void aLimitOutOfRangeIsRefusedNamingTheLimitBeforeAnythingIsRead() throws Exception {
    Connection closed = ds.getConnection();
    closed.close(); // a read on it would fail with a PostboxException, not an InvalidValueException
    for (int limit : new int[] {0, -1, 100_001}) {
      InvalidValueException e =
          assertThrows(InvalidValueException.class, () -> outbox.failing(closed, limit));
      assertEquals("limit", e.field());
      assertEquals("limit must be between 1 and 100000 but was " + limit, e.getMessage());
      e = assertThrows(InvalidValueException.class, () -> jobs.failing(closed, limit));
      assertEquals("limit", e.field());
    }
  }
}

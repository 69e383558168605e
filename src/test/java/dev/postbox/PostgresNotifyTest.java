package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * LISTEN/NOTIFY wake-ups on PostgreSQL: with a poll interval of an hour, only a notification can
 * get a message added by another instance delivered within the test's deadline.
 */
class PostgresNotifyTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }

  private void awaitListening() {
    Await.until(
        WAIT,
        "the dispatcher to LISTEN",
        () ->
            Sql.count(
                    ds,
                    "SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND datname = current_database()")
                > 0);
  }

  @Test
  void addedMessagesWakeASleepingDispatcherThroughNotify() {
    Outbox outbox = Outbox.builder().notifyDispatchers(true).build();
    RecordingTransport transport = new RecordingTransport();
    started(
        Dispatcher.builder(ds)
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofHours(1)));
    awaitListening();

    for (int round = 1; round <= 3; round++) {
      String id = "notified-" + round;
      Sql.commit(ds, c -> assertTrue(outbox.add(c, Message.of("t", "{}").eventId(id))));
      Await.until(WAIT, id, () -> transport.count(id) == 1);
    }
    Sql.commit(
        ds,
        c -> {
          assertTrue(outbox.add(c, Message.of("t", "{}").eventId("twice")));
          assertFalse(outbox.add(c, Message.of("t", "{}").eventId("twice")), "duplicate");
        });
    Await.until(WAIT, "twice", () -> transport.count("twice") == 1);
    assertEquals(4, transport.total.get());

    // no event id: Postbox generates one and takes the plain INSERT, which must notify as well
    Sql.commit(ds, c -> assertTrue(outbox.add(c, Message.of("t", "{}"))));
    Await.until(WAIT, "a message with a generated id", () -> transport.total.get() == 5);
    Sql.commit(
        ds,
        c ->
            assertEquals(
                2,
                outbox.addAll(c, java.util.List.of(Message.of("t", "{}"), Message.of("t", "{}")))));
    Await.until(WAIT, "two more with generated ids", () -> transport.total.get() == 7);
    assertEquals(7, transport.deliveries.size(), "distinct event ids");
  }

  @Test
  void enqueuedJobsWakeASleepingDispatcherThroughNotify() {
    Jobs jobs = Jobs.builder().notifyDispatchers(true).build();
    AtomicInteger runs = new AtomicInteger();
    JobHandler handler =
        new JobHandler() {
          @Override
          public String name() {
            return "ping";
          }

          @Override
          public void execute(String payload) {
            runs.incrementAndGet();
          }
        };
    started(
        Dispatcher.builder(ds)
            .jobs(jobs, handler)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofHours(1)));
    awaitListening();

    for (int round = 1; round <= 3; round++) {
      int expected = round;
      Sql.commit(ds, c -> assertTrue(jobs.enqueue(c, Job.of("ping", "{}"))));
      Await.until(WAIT, "job " + round, () -> runs.get() == expected);
    }
  }
}

package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.CapturedStderr;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code notifyDispatchers} behind PgBouncer in transaction mode, which cannot keep a LISTEN: the
 * dispatcher finds that out, says so in one INFO line and delivers by polling. (On PostgreSQL
 * itself, {@link PostgresNotifyTest} proves the LISTEN still wakes it.)
 */
@Tag("reliability") // through PgBouncer (.ci/run starts it): mvn -B -Preliability verify
class PgBouncerNotifyTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String FALLBACK = "cannot keep a LISTEN";

  @Override
  protected TestDatabase open() {
    return TestDatabase.pgbouncer();
  }

  @Test
  void aListenBehindATransactionPoolerFallsBackToPollingWithOneInfoLine() {
    Outbox outbox = Outbox.builder().notifyDispatchers(true).build();
    Jobs jobs = Jobs.builder().notifyDispatchers(true).build();
    RecordingTransport transport = new RecordingTransport();
    AtomicInteger runs = new AtomicInteger();
    JobHandler handler = JobHandler.of("ping", job -> runs.incrementAndGet());
    try (CapturedStderr log = CapturedStderr.start()) {
      started(
          Dispatcher.builder(ds)
              .outbox(outbox, transport)
              .jobs(jobs, handler)
              .instanceId("bounced")
              .pollInterval(Duration.ofMillis(200)));
      Await.until(WAIT, "the LISTEN's fallback", () -> log.lines(FALLBACK) == 1);

      for (int round = 1; round <= 3; round++) {
        String id = "polled-" + round;
        int expected = round;
        Sql.commit(ds, c -> assertTrue(outbox.add(c, Message.of("t", "{}").eventId(id))));
        Sql.commit(ds, c -> assertTrue(jobs.enqueue(c, Job.of("ping", "{}"))));
        Await.until(WAIT, id, () -> transport.count(id) == 1 && runs.get() == expected);
      }
      assertEquals(3, transport.total.get());

      List<String> fallback = log.text().lines().filter(l -> l.contains(FALLBACK)).toList();
      assertEquals(1, fallback.size(), log.text());
      String line = fallback.get(0);
      assertTrue(line.contains(" INFO dev.postbox.internal.PostgresNotifications - bounced"), line);
      assertTrue(line.contains("LISTEN on ["), line);
      assertTrue(line.contains("postbox_outbox") && line.contains("postbox_jobs"), line);
      assertTrue(
          line.endsWith(
              "received no test notification within 5 s: a transaction pooler (PgBouncer in"
                  + " transaction mode?) cannot keep a LISTEN; polling every 200 ms instead"),
          line);
      assertEquals(0, log.lines("LISTEN connection failed"), log.text()); // no retries after it
    }
  }
}

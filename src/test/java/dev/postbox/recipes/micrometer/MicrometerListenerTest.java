package dev.postbox.recipes.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.Message;
import dev.postbox.OutboxSuite;
import dev.postbox.RejectedMessageException;
import dev.postbox.Transport;
import dev.postbox.testing.Await;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Micrometer recipe on PostgreSQL: 10 messages, of which m1 and m2 fail once and m9 (on its own
 * topic) is always rejected, with 3 attempts; the counters, timers and gauges then hold exact
 * values.
 */
class MicrometerListenerTest extends OutboxSuite {
  private static final String TABLE = "postbox_outbox";

  // one registry per test: the test instance is shared and a registry keeps its first gauge of a
  // name
  private MeterRegistry registry;

  @BeforeEach
  void newRegistry() {
    registry = new SimpleMeterRegistry();
  }

  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres(4);
  }

  @Test
  void recordsEveryOutcomeAndTheQueueGauges() {
    new QueueStatsGauges(registry, ds, outbox.table(), outbox::stats, Duration.ZERO);
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    Transport transport =
        envelope -> {
          if (envelope.eventId().equals("m9")) {
            throw new RejectedMessageException("no route for audit");
          }
          if (Set.of("m1", "m2").contains(envelope.eventId())
              && failedOnce.add(envelope.eventId())) {
            throw new IllegalStateException("broker hiccup");
          }
        };
    for (int i = 0; i < 10; i++) {
      add(Message.of(i == 9 ? "audit" : "orders", "{}").eventId("m" + i));
    }

    started(dispatcher(transport).maxAttempts(3).listener(new MicrometerListener(registry)));
    Await.until(
        WAIT,
        "9 delivered, 1 parked, none pending",
        () ->
            timerCount("postbox.delivered", "orders") == 9
                && counter("postbox.parked", "audit") == 1
                && gauge("postbox.queue.pending") == 0);

    assertEquals(2, counter("postbox.failed", "orders")); // m1 and m2, once each
    // m9: attempts 1 and 2 fail and are retried; attempt 3 parks it (parked, not failed)
    assertEquals(2, counter("postbox.failed", "audit"));
    assertEquals(14, registry.get("postbox.claimed").tag("table", TABLE).counter().count());
    assertEquals(1, gauge("postbox.queue.parked"));
    assertEquals(0, gauge("postbox.queue.due"));
    assertEquals(0, gauge("postbox.queue.leased"));
    assertEquals(0, gauge("postbox.queue.blocked.keys"));
    assertEquals(0, gauge("postbox.queue.blocked"));
    assertEquals(
        0, registry.get("postbox.queue.oldest.age").timeGauge().value(TimeUnit.MILLISECONDS));
    assertEquals(0, registry.find("postbox.outage.started").counters().size());
  }

  @Test
  void oneReadServesEveryScrapeWithinMaxAge() {
    addNumbered("cached", 3);
    QueueStatsGauges gauges =
        new QueueStatsGauges(registry, ds, outbox.table(), outbox::stats, Duration.ofHours(1));

    assertEquals(3, gauge("postbox.queue.pending"));
    addNumbered("later", 2);

    assertEquals(3, gauge("postbox.queue.pending")); // the cached read, not the table's 5
    assertEquals(3, gauge("postbox.queue.due"));
    assertEquals(5, rows());
    assertEquals(3, gauges.stats().pending());
  }

  @Test
  void recordsOutagesLostLeasesRetriesAndStoppedTables() {
    MicrometerListener listener = new MicrometerListener(registry);

    listener.outageStarted(TABLE);
    listener.outageEnded(TABLE, Duration.ofSeconds(3));
    listener.leaseLost(TABLE, 2);
    listener.retried(TABLE, "claim", new SQLException("deadlock detected", "40P01"));
    listener.retried(TABLE, "outcome", new SQLException("deadlock detected", "40P01"));
    listener.retried(TABLE, "outcome", new SQLException("deadlock detected", "40P01"));
    listener.tableStopped(TABLE, new OutOfMemoryError("test"));

    assertEquals(1, registry.get("postbox.outage.started").tag("table", TABLE).counter().count());
    assertEquals(1, registry.get("postbox.outage").tag("table", TABLE).timer().count());
    assertEquals(
        3.0,
        registry.get("postbox.outage").tag("table", TABLE).timer().totalTime(TimeUnit.SECONDS));
    assertEquals(2, registry.get("postbox.lease.lost").tag("table", TABLE).counter().count());
    assertEquals(1, registry.get("postbox.retried").tag("operation", "claim").counter().count());
    assertEquals(2, registry.get("postbox.retried").tag("operation", "outcome").counter().count());
    assertEquals(1, registry.get("postbox.table.stopped").tag("table", TABLE).counter().count());
  }

  private double counter(String name, String topic) {
    var found = registry.find(name).tags("table", TABLE, "topic", topic).counter();
    return found == null ? 0 : found.count();
  }

  private long timerCount(String name, String topic) {
    var found = registry.find(name).tags("table", TABLE, "topic", topic).timer();
    return found == null ? 0 : found.count();
  }

  private double gauge(String name) {
    return registry.get(name).tag("table", TABLE).gauge().value();
  }
}

package dev.postbox.recipes.micrometer;

import dev.postbox.Delivery;
import dev.postbox.Listener;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;

/**
 * A {@link Listener} that records the dispatcher's events as Micrometer meters, tagged with the
 * table and, for a row's outcome, its topic (the job name for jobs). The event id is never a tag:
 * one time series per message would grow without bound.
 *
 * <p>Thread-safe: the dispatcher calls it from several threads at once, and each call is a lookup
 * in the registry's concurrent map plus an increment, fast enough for the delivery threads.
 */
public final class MicrometerListener implements Listener {
  private final MeterRegistry registry;

  public MicrometerListener(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void claimed(String table, int count) {
    registry.counter("postbox.claimed", "table", table).increment(count);
  }

  @Override
  public void delivered(Delivery delivery, Duration elapsed) {
    registry
        .timer("postbox.delivered", "table", delivery.table(), "topic", delivery.topic())
        .record(elapsed);
  }

  @Override
  public void failed(Delivery delivery, Throwable error, Duration retryIn) {
    registry
        .counter("postbox.failed", "table", delivery.table(), "topic", delivery.topic())
        .increment();
  }

  @Override
  public void parked(Delivery delivery, String reason) {
    // the reason is free text (an exception message): a log line's job, not a tag
    registry
        .counter("postbox.parked", "table", delivery.table(), "topic", delivery.topic())
        .increment();
  }

  @Override
  public void leaseLost(String table, int count) {
    registry.counter("postbox.lease.lost", "table", table).increment(count);
  }

  @Override
  public void outageStarted(String table) {
    registry.counter("postbox.outage.started", "table", table).increment();
  }

  @Override
  public void outageEnded(String table, Duration outage) {
    registry.timer("postbox.outage", "table", table).record(outage);
  }

  @Override
  public void tableStopped(String table, Throwable cause) {
    // worth an alert: the process must be restarted for this table to be dispatched here again
    registry.counter("postbox.table.stopped", "table", table).increment();
  }

  @Override
  public void retried(String table, String operation, SQLException error) {
    registry.counter("postbox.retried", "table", table, "operation", operation).increment();
  }
}

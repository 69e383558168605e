package dev.postbox.kafka;

import dev.postbox.Delivery;
import dev.postbox.Listener;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** What an in-process dispatcher reported: sends, failed attempts, parked rows, outages. */
final class DispatchCounts implements Listener {
  final AtomicInteger delivered = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();
  final AtomicInteger parked = new AtomicInteger();
  final AtomicInteger outages = new AtomicInteger();
  final AtomicInteger recoveries = new AtomicInteger();

  @Override
  public void delivered(Delivery delivery, Duration elapsed) {
    delivered.incrementAndGet();
  }

  @Override
  public void failed(Delivery delivery, Throwable error, Duration retryIn) {
    failed.incrementAndGet();
  }

  @Override
  public void parked(Delivery delivery, String reason) {
    parked.incrementAndGet();
  }

  @Override
  public void outageStarted(String table) {
    outages.incrementAndGet();
  }

  @Override
  public void outageEnded(String table, Duration outage) {
    recoveries.incrementAndGet();
  }
}

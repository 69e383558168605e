package dev.postbox.nats;

import dev.postbox.Delivery;
import dev.postbox.Listener;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** What the dispatcher reported: failed attempts, parked rows, outages and their end. */
final class DispatchEvents implements Listener {
  final AtomicInteger failed = new AtomicInteger();
  final AtomicInteger parked = new AtomicInteger();
  final AtomicInteger outages = new AtomicInteger();
  final AtomicInteger recoveries = new AtomicInteger();
  volatile long recoveredNanos;

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
    recoveredNanos = System.nanoTime();
  }
}

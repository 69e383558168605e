package dev.postbox.testing;

import dev.postbox.Delivery;
import dev.postbox.Listener;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a dispatcher reported to its listener: sends, failed attempts, parked rows, outages and
 * their end (with the time of the last end, for the tests that report how soon dispatch resumed).
 */
public final class DispatchEvents implements Listener {
  public final AtomicInteger delivered = new AtomicInteger();
  public final AtomicInteger failed = new AtomicInteger();
  public final AtomicInteger parked = new AtomicInteger();
  public final AtomicInteger outages = new AtomicInteger();
  public final AtomicInteger recoveries = new AtomicInteger();
  public volatile long recoveredNanos;

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
    recoveredNanos = System.nanoTime();
  }
}

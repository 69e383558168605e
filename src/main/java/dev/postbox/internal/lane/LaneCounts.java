package dev.postbox.internal.lane;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a lane has finished since its dispatcher started, counted once the outcomes are committed:
 * rows delivered (or jobs succeeded), failed attempts that are retried, rows parked. The console's
 * metrics read them. Thread-safe.
 */
public final class LaneCounts {
  private final LongAdder delivered = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder parked = new LongAdder();

  void addDelivered(int rows) {
    delivered.add(rows);
  }

  void addFailed() {
    failed.increment();
  }

  void addParked() {
    parked.increment();
  }

  /** {@return rows delivered, or jobs succeeded} */
  public long delivered() {
    return delivered.sum();
  }

  /** {@return failed attempts retried later} */
  public long failed() {
    return failed.sum();
  }

  /** {@return rows parked} */
  public long parked() {
    return parked.sum();
  }
}

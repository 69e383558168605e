package dev.postbox.internal.lane;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Tells when a lane is idle: its main claim loop claimed nothing while it held no row, no extra
 * loop's claim was in flight and nothing else happened on the lane (no other claim started, no
 * outcome written), and the claim looked at every row it could have claimed, so at that claim's
 * moment no row was claimable and none was in flight. Rows waiting for a retry or a delay, parked
 * rows and rows behind a parked key are not claimable, so they do not keep a lane busy.
 * Thread-safe: the claim loops and the writer report here; any thread waits.
 */
final class IdleWatch {
  private static final long WAKE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final AtomicLong activity = new AtomicLong();
  private final AtomicInteger extraClaims = new AtomicInteger(); // extra loops' claims in flight
  private final AtomicInteger waiting = new AtomicInteger(); // threads in awaitProofAfter
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition proved = lock.newCondition();
  private long lastProof; // the activity count at the start of the latest proving claim; lock
  private final LongSupplier nanoTime; // the clock of the unseen leases' end
  private final AtomicLong unseenLeasesEnd; // nanoTime

  IdleWatch() {
    this(System::nanoTime);
  }

  /** An idle watch whose leases end by {@code nanoTime} (tests pass their own). */
  IdleWatch(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.unseenLeasesEnd = new AtomicLong(nanoTime.getAsLong());
  }

  /** Something that may change what is claimable happened: returns the new activity count. */
  long touched() {
    return activity.incrementAndGet();
  }

  /**
   * An extra loop's claim begins. Until it {@linkplain #extraClaimEnded ends} (its rows in the held
   * map), no claim proves the lane idle: the rows it locked or leased are invisible to a claim, yet
   * nowhere else in sight. Counted before the activity moves, so that a claim either sees it in
   * flight or sees the activity move.
   */
  void extraClaimStarted() {
    extraClaims.incrementAndGet();
    activity.incrementAndGet();
  }

  /** An extra loop's claim ended, its rows (if any) in the held map. */
  void extraClaimEnded() {
    activity.incrementAndGet();
    extraClaims.decrementAndGet();
  }

  /**
   * A claim failed in a way that may have committed it (the connection broke): rows it leased may
   * be nowhere in sight until {@code lease} has passed, when they are due again. Until then no
   * claim proves the lane idle.
   */
  void claimMayHaveCommitted(Duration lease) {
    long end = nanoTime.getAsLong() + lease.toNanos();
    unseenLeasesEnd.updateAndGet(current -> end - current > 0 ? end : current);
    activity.incrementAndGet();
  }

  /** True while rows a failed claim may have leased can still be leased: see above. */
  boolean unseenLeasesPossible() {
    return unseenLeasesEnd.get() - nanoTime.getAsLong() > 0;
  }

  /**
   * True while a thread waits for a proof: only then is a claim asked to search for every claimable
   * row ({@link dev.postbox.internal.sql.ClaimStrategy#claim}), which a proof needs and which, on a
   * table ordered by key with a full window, costs a walk over every key.
   */
  boolean awaited() {
    return waiting.get() > 0;
  }

  /** True while an extra loop's claim is in flight. */
  boolean extraClaimInFlight() {
    return extraClaims.get() > 0;
  }

  /** The activity count: unchanged between two reads means nothing happened in between. */
  long activity() {
    return activity.get();
  }

  /** The main claim loop's empty claim, started at activity count {@code at}, proved it idle. */
  void proved(long at) {
    lock.lock();
    try {
      lastProof = Math.max(lastProof, at);
      proved.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a claim that started after the activity count was {@code seen} proves the lane idle
   * (a claim started earlier may have missed a commit made since), or until the deadline; runs
   * {@code wakeUp} at once and then every 10 ms so that a claim loop in a long poll wait claims
   * again. False on the deadline.
   */
  boolean awaitProofAfter(long seen, long deadlineNanos, Runnable wakeUp)
      throws InterruptedException {
    waiting.incrementAndGet();
    try {
      return awaitProof(seen, deadlineNanos, wakeUp);
    } finally {
      waiting.decrementAndGet();
    }
  }

  private boolean awaitProof(long seen, long deadlineNanos, Runnable wakeUp)
      throws InterruptedException {
    while (true) {
      wakeUp.run();
      lock.lock();
      try {
        if (lastProof > seen) {
          return true;
        }
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        proved.awaitNanos(Math.min(left, WAKE_EVERY_NANOS));
        if (lastProof > seen) {
          return true;
        }
      } finally {
        lock.unlock();
      }
    }
  }
}

package dev.postbox.internal.lane;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The outcomes waiting for the outcome writer, and how the writer waits for them. Lock-free:
 * sixteen delivery threads adding at once must not queue up behind each other, and an outcome wakes
 * the writer only if it is parked waiting for one ({@code idle}), not while it lingers.
 *
 * <p>Successes are kept apart, so that the next claim can take them ({@link #takeForClaim}) and
 * record them in its own statement: while the claim loop is busy, successes wait up to {@value
 * #DEFER_MILLIS} ms for it. Failures and hand-backs are the writer's alone. Any thread adds; only
 * the writer thread takes.
 */
final class OutcomeQueue {
  static final int MAX_BATCH = 1000;
  static final Outcome STOP = new Outcome(null, null, null, null, 0);

  /** What {@link #take} returns when given-back successes wait: see {@link #nextRewrite}. */
  static final Outcome REWRITE = new Outcome(null, null, null, null, 0);

  private static final int LINGER_MILLIS = 2;
  private static final int DEFER_MILLIS = 5;

  private final ConcurrentLinkedQueue<Outcome> queue = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Outcome> successes = new ConcurrentLinkedQueue<>();
  // successes a failed claim may have recorded after all: written again as a retry
  private final ConcurrentLinkedQueue<Carried> rewrites = new ConcurrentLinkedQueue<>();
  private final Thread writer;
  private final BooleanSupplier claimingSoon;
  private final IntSupplier running;
  private final LongSupplier nanoTime; // the linger's clock
  private volatile boolean idle;
  private volatile boolean lingering;
  private volatile boolean deferring;

  /**
   * @param writer the one thread that takes outcomes
   * @param claimingSoon true while the claim loop will claim again soon and may take successes
   * @param running deliveries running now, for the writer's linger
   */
  OutcomeQueue(Thread writer, BooleanSupplier claimingSoon, IntSupplier running) {
    this(writer, claimingSoon, running, System::nanoTime);
  }

  /** As above, lingering by the clock {@code nanoTime} (tests pass their own). */
  OutcomeQueue(
      Thread writer, BooleanSupplier claimingSoon, IntSupplier running, LongSupplier nanoTime) {
    this.writer = writer;
    this.claimingSoon = claimingSoon;
    this.running = running;
    this.nanoTime = nanoTime;
  }

  void add(Outcome outcome) {
    boolean success = outcome.kind() == Outcome.Kind.SUCCEEDED;
    (success ? successes : queue).add(outcome);
    if (idle || (deferring && !success)) {
      LockSupport.unpark(writer);
    }
  }

  /** Queues the outcomes of one batch delivery; wakes the writer at most once. */
  void addAll(Outcome[] outcomes) {
    boolean failure = false;
    for (Outcome o : outcomes) {
      boolean success = o.kind() == Outcome.Kind.SUCCEEDED;
      (success ? successes : queue).add(o);
      failure |= !success;
    }
    if (idle || (deferring && failure)) {
      LockSupport.unpark(writer);
    }
  }

  /**
   * Successes a failed claim did not record: the writer writes them (with its own retries). With
   * {@code mayHaveCommitted} (the connection broke, perhaps after the database committed the claim
   * and its finish), the writer writes them as a retry of that claim, on their own: rows they no
   * longer match were most likely finished by it, not taken over by another instance.
   */
  void giveBack(Carried c, boolean mayHaveCommitted) {
    if (mayHaveCommitted) {
      rewrites.add(c);
    } else {
      queue.addAll(c.outcomes);
    }
    LockSupport.unpark(writer);
  }

  /** The oldest given-back claim's successes to write again, left queued; null if none. */
  Carried nextRewrite() {
    return rewrites.peek();
  }

  /** Drops the rewrite {@link #nextRewrite} returned, once it is written. */
  void rewritten() {
    rewrites.poll();
  }

  /**
   * Tells a lingering writer that no delivery is running any more: nothing is worth waiting for.
   */
  void nudge() {
    if (lingering) {
      LockSupport.unpark(writer);
    }
  }

  /** Tells a deferring writer that no claim is coming soon: write the successes now. */
  void claimsPaused() {
    if (deferring) {
      LockSupport.unpark(writer);
    }
  }

  /**
   * Takes queued successes for the next claim to record: those of the first one's claim count (the
   * others go to the writer), or null if none are queued.
   */
  Carried takeForClaim() {
    Outcome first = successes.poll();
    if (first == null) {
      return null;
    }
    int claims = first.row().claims();
    List<Outcome> taken = new ArrayList<>();
    taken.add(first);
    Outcome next;
    boolean other = false;
    while (taken.size() < MAX_BATCH && (next = successes.poll()) != null) {
      if (next.row().claims() == claims) {
        taken.add(next);
      } else {
        queue.add(next);
        other = true;
      }
    }
    if (other && idle) {
      LockSupport.unpark(writer);
    }
    return new Carried(claims, taken);
  }

  /**
   * The writer's next outcome, parking until one is added ({@link #REWRITE} while given-back
   * successes wait to be written again); null if interrupted. Successes alone wait once for up to
   * {@value #DEFER_MILLIS} ms while a claim is coming, which may take them.
   */
  Outcome take() {
    boolean deferred = false;
    while (true) {
      if (!rewrites.isEmpty()) {
        return REWRITE;
      }
      Outcome next = queue.poll();
      if (next != null) {
        return next;
      }
      if (!successes.isEmpty()) {
        if (!deferred && claimingSoon.getAsBoolean()) {
          deferred = true;
          deferring = true;
          try {
            if (queue.isEmpty()) {
              LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(DEFER_MILLIS));
            }
          } finally {
            deferring = false;
          }
        } else if ((next = successes.poll()) != null) {
          return next;
        }
      } else {
        // announce the park before the last look, so an add either is seen here or unparks us
        idle = true;
        try {
          if (queue.isEmpty() && successes.isEmpty() && rewrites.isEmpty()) {
            LockSupport.park(this);
          }
        } finally {
          idle = false;
        }
        deferred = false;
      }
      if (Thread.currentThread().isInterrupted()) {
        return null;
      }
    }
  }

  /** Moves queued outcomes into {@code batch}, failures first, up to {@code max}. */
  void drain(List<Outcome> batch, int max) {
    Outcome next;
    while (batch.size() < max && (next = queue.poll()) != null) {
      batch.add(next);
    }
    while (batch.size() < max && (next = successes.poll()) != null) {
      batch.add(next);
    }
  }

  /**
   * On a database with one writer every write is a commit with its own fsync and its own turn at
   * the file lock: while deliveries are still running, wait up to {@value #LINGER_MILLIS} ms for
   * their outcomes so that one statement records many.
   */
  void linger(List<Outcome> batch) {
    long deadline = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
    // parked for the whole linger, not woken per outcome: the last delivery to end nudges us
    lingering = true;
    try {
      while (batch.size() < MAX_BATCH && running.getAsInt() > 0 && !batch.contains(STOP)) {
        long left = deadline - nanoTime.getAsLong();
        if (left <= 0) {
          return;
        }
        LockSupport.parkNanos(this, left);
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        drain(batch, MAX_BATCH);
      }
    } finally {
      lingering = false;
      drain(batch, MAX_BATCH);
    }
  }
}

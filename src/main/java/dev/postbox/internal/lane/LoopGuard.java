package dev.postbox.internal.lane;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one of a lane's loop threads (the claim loop, the outcome writer) alive through an {@link
 * Error} thrown by one of its iterations: logs it at ERROR, pauses (100 ms, doubling up to 5 s) and
 * lets the loop go on, since an {@link OutOfMemoryError} from one large claim may well not recur.
 * Errors that keep coming for a whole lease with no iteration succeeding in between mean the loop
 * cannot go on: {@link #pauseAfter} then says so, and the lane stops rather than renewing rows it
 * can no longer finish. Used by one thread.
 */
final class LoopGuard {
  private static final Logger log = LoggerFactory.getLogger(LoopGuard.class);
  private static final long FIRST_PAUSE_MILLIS = 100;
  private static final long MAX_PAUSE_MILLIS = 5_000;

  private final String name;
  private final long giveUpAfterNanos;
  private long failingSinceNanos;
  private boolean failing;
  private long pauseMillis = FIRST_PAUSE_MILLIS;

  /**
   * @param name the loop, for logs: {@code <instance>-<table>-claims}
   * @param giveUpAfter how long Errors may go on before the loop gives up: the lease
   */
  LoopGuard(String name, Duration giveUpAfter) {
    this.name = name;
    this.giveUpAfterNanos = giveUpAfter.toNanos();
  }

  /** An iteration went through: the next Error starts a new count. */
  void succeeded() {
    if (failing) {
      failing = false;
      pauseMillis = FIRST_PAUSE_MILLIS;
    }
  }

  /**
   * Logs {@code error} at ERROR; returns how long to pause before the next iteration, or null if
   * Errors have gone on for longer than allowed and the loop must stop.
   */
  Duration pauseAfter(Throwable error) {
    long now = System.nanoTime();
    if (!failing) {
      failing = true;
      failingSinceNanos = now;
    }
    if (now - failingSinceNanos > giveUpAfterNanos) {
      return null;
    }
    log.error("{} - failed, going on in {} ms", name, pauseMillis, error);
    Duration pause = Duration.ofMillis(pauseMillis);
    pauseMillis = Math.min(pauseMillis * 2, MAX_PAUSE_MILLIS);
    return pause;
  }

  /** {@link #pauseAfter} for a loop with nothing to wake it early: parks the thread itself. */
  boolean survived(Throwable error) {
    Duration pause = pauseAfter(error);
    if (pause != null) {
      LockSupport.parkNanos(pause.toNanos());
    }
    return pause != null;
  }
}

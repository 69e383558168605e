package dev.postbox.internal;

import java.time.Duration;

/** Waiting for threads to end in close(), where an interrupt must not skip the next step. */
public final class Joins {
  private Joins() {}

  /**
   * Waits up to {@code max} for {@code thread} to end, through interrupts; returns true if the
   * caller was interrupted meanwhile (the caller re-asserts it once every step has run).
   */
  public static boolean join(Thread thread, Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    boolean interrupted = false;
    while (thread.isAlive()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        thread.join(Duration.ofNanos(left));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    return interrupted;
  }
}

package dev.postbox;

import dev.postbox.internal.Require;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before the next attempt after a failed one; the wait is added to the database's
 * clock, never the application's.
 *
 * <p>Implementations must be thread-safe; they are called from delivery threads.
 */
@FunctionalInterface
public interface Backoff {

  /** The delay before the attempt after failed attempt number {@code attempt} (1-based). */
  Duration delay(int attempt);

  /**
   * {@code initial × 2^(attempt-1)}, capped at {@code max}, then jittered down by up to a half so
   * that messages that failed together do not retry together.
   */
  static Backoff exponential(Duration initial, Duration max) {
    Require.between("backoff initial", initial, Duration.ofMillis(1), Duration.ofDays(1));
    Require.between("backoff max", max, initial, Duration.ofDays(7));
    long initialMillis = initial.toMillis();
    long maxMillis = max.toMillis();
    return attempt -> {
      int shift = Math.min(Math.max(attempt - 1, 0), 40);
      long full = initialMillis << shift;
      long capped = full <= 0 || full > maxMillis ? maxMillis : full;
      long half = capped / 2;
      return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(capped - half + 1));
    };
  }

  /** The same delay after every failure. */
  static Backoff fixed(Duration delay) {
    Require.between("backoff delay", delay, Duration.ZERO, Duration.ofDays(7));
    return attempt -> delay;
  }
}

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

  /**
   * The delay before the attempt after failed attempt number {@code attempt} (1-based).
   *
   * @param attempt the attempt that failed, 1 for the first
   * @return the delay; a null or negative one, or an exception, means 1 second, and one over 365
   *     days is cut to 365 days
   */
  Duration delay(int attempt);

  /**
   * {@code initial × 2^(attempt-1)}, capped at {@code max}, then jittered down by up to a half so
   * that messages that failed together do not retry together.
   *
   * @param initial the delay after the first failure, 1 ms to 1 day
   * @param max the longest delay, from {@code initial} to 7 days
   * @return the backoff
   * @throws InvalidValueException if {@code initial} or {@code max} is null or out of range
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

  /**
   * The same delay after every failure.
   *
   * @param delay the delay, 0 to 7 days
   * @return the backoff
   * @throws InvalidValueException if {@code delay} is null or out of range
   */
  static Backoff fixed(Duration delay) {
    Require.between("backoff delay", delay, Duration.ZERO, Duration.ofDays(7));
    return attempt -> delay;
  }
}

package dev.postbox.internal.jdbc;

import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** Retries work that failed on a deadlock, lock timeout or busy database, with jittered pauses. */
public final class Retry {
  public static final int ATTEMPTS = 5;

  private Retry() {}

  /**
   * Runs {@code work}, retrying the failures {@code transient} accepts up to {@value #ATTEMPTS}
   * tries; {@code retrying} hears of each retry.
   */
  public static <T> T transients(
      Predicate<SQLException> isTransient, SqlSupplier<T> work, Consumer<SQLException> retrying)
      throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.get();
      } catch (SQLException e) {
        if (attempt >= ATTEMPTS || !isTransient.test(e)) {
          throw e;
        }
        retrying.accept(e);
        long pauseMillis = ThreadLocalRandom.current().nextLong(5L << attempt, 10L << attempt);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
      }
    }
  }
}

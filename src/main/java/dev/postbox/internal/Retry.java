package dev.postbox.internal;

import dev.postbox.internal.dialect.Dialect;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/** Retries work that failed on a deadlock, lock timeout or busy database, with jittered pauses. */
final class Retry {
  static final int ATTEMPTS = 5;

  private Retry() {}

  interface Work<T> {
    T run() throws SQLException;
  }

  /** Runs {@code work}, retrying transient failures; {@code retrying} hears of each retry. */
  static <T> T transients(Dialect dialect, Work<T> work, Consumer<SQLException> retrying)
      throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.run();
      } catch (SQLException e) {
        if (attempt >= ATTEMPTS || !dialect.isTransient(e)) {
          throw e;
        }
        retrying.accept(e);
        long pauseMillis = ThreadLocalRandom.current().nextLong(5L << attempt, 10L << attempt);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
      }
    }
  }
}

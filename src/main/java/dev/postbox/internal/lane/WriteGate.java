package dev.postbox.internal.lane;

import dev.postbox.internal.jdbc.SqlSupplier;
import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Takes turns between one lane's claims and outcome writes where the database has a single writer
 * (SQLite). Without it the claim loop, which claims again at once after a full batch, wins the
 * file's write lock over and over while the outcome writer sleeps in SQLite's busy handler; a fair
 * lock hands the turn over directly. Elsewhere it does nothing.
 */
final class WriteGate {
  private final ReentrantLock lock;

  WriteGate(boolean oneWriter) {
    this.lock = oneWriter ? new ReentrantLock(true) : null;
  }

  <T> T through(SqlSupplier<T> work) throws SQLException {
    if (lock == null) {
      return work.get();
    }
    lock.lock();
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }
}

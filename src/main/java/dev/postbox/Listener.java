package dev.postbox;

import java.sql.SQLException;
import java.time.Duration;

/**
 * Hooks for metrics and tracing (Micrometer, OpenTelemetry, …) without Postbox depending on them;
 * every method is a no-op by default.
 *
 * <p>Called synchronously from the dispatcher's threads (claim loop, delivery threads, completion
 * writer), concurrently: keep implementations fast and thread-safe. An exception thrown here is
 * logged and otherwise ignored.
 */
public interface Listener {

  /** A claim on {@code table} leased {@code count} rows (never called for empty claims). */
  default void claimed(String table, int count) {}

  /**
   * The transport accepted a message (or a job handler returned) after {@code elapsed}. Reported
   * even when the outcome could not be recorded because the lease was lost ({@link #leaseLost}).
   */
  default void delivered(Delivery delivery, Duration elapsed) {}

  /**
   * A delivery failed and will be retried after {@code retryIn}; also reported during an outage,
   * when the attempt is not counted.
   */
  default void failed(Delivery delivery, Throwable error, Duration retryIn) {}

  /** A row was parked after its last attempt (or at once, e.g. a job with no handler). */
  default void parked(Delivery delivery, String reason) {}

  /**
   * {@code count} outcomes on {@code table} were not written because this instance no longer held
   * the lease (another instance took the rows over).
   */
  default void leaseLost(String table, int count) {}

  /** The transport failed for every message; dispatch is paused and probed. */
  default void outageStarted(String table) {}

  /** A probe succeeded after an outage. */
  default void outageEnded(String table, Duration outage) {}

  /**
   * Dispatching on {@code table} stopped for good in this dispatcher: one of its threads failed
   * with {@code cause} (an {@link Error}) on every try for a whole lease. It no longer claims or
   * renews, so other instances take its rows over one lease later; restart the process.
   */
  default void tableStopped(String table, Throwable cause) {}

  /**
   * A claim or an outcome write on {@code table} hit a deadlock, a lock wait timeout or a busy
   * database and is retried after a short jittered pause; {@code operation} is {@code "claim"} or
   * {@code "outcome"}. Expected now and then under contention (MySQL/MariaDB deadlocks, SQLite
   * busy); a steady rate is worth a look.
   */
  default void retried(String table, String operation, SQLException error) {}
}

package dev.postbox;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * Hooks for metrics and tracing (Micrometer, OpenTelemetry, …) without Postbox depending on them;
 * every method is a no-op by default.
 *
 * <p>Called synchronously from the dispatcher's threads (claim loop, delivery threads, completion
 * writer), concurrently: keep implementations fast and thread-safe. An exception thrown here is
 * logged and otherwise ignored. Guide: {@code docs/operations.md#listener}.
 */
public interface Listener {

  /**
   * A claim on {@code table} leased {@code count} rows (never called for empty claims).
   *
   * @param table the table claimed from
   * @param count the rows the claim leased, at least 1
   */
  default void claimed(String table, int count) {}

  /**
   * The transport accepted a message (or a job handler returned) after {@code elapsed}. Reported
   * even when the outcome could not be recorded because the lease was lost ({@link #leaseLost}).
   *
   * @param delivery the row delivered
   * @param elapsed how long the send or the handler took
   */
  default void delivered(Delivery delivery, Duration elapsed) {}

  /**
   * A delivery failed and will be retried after {@code retryIn}; also reported during an outage,
   * when the attempt is not counted, for a snooze (the error is then the {@link RetryLater}, even
   * if it came wrapped in another exception, and the attempt is not counted), and when the
   * connection broke as the failure was recorded and the write's retry found the row written
   * already (or taken over).
   *
   * @param delivery the row whose delivery failed
   * @param error what the transport or the handler threw
   * @param retryIn how long until the row is due again
   */
  default void failed(Delivery delivery, Throwable error, Duration retryIn) {}

  /**
   * A row was parked after its last attempt (or at once, e.g. a job with no handler).
   *
   * @param delivery the row parked
   * @param reason why it was parked, as recorded in its {@code last_error}
   */
  default void parked(Delivery delivery, String reason) {}

  /**
   * {@code count} outcomes on {@code table} were not written because this instance no longer held
   * the lease (another instance took the rows over).
   *
   * @param table the table of the rows
   * @param count the outcomes not written
   */
  default void leaseLost(String table, int count) {}

  /**
   * The transport failed for every message; dispatch is paused and probed.
   *
   * @param table the table whose dispatch is paused
   */
  default void outageStarted(String table) {}

  /**
   * A probe succeeded after an outage.
   *
   * @param table the table whose dispatch goes on
   * @param outage how long the outage lasted
   */
  default void outageEnded(String table, Duration outage) {}

  /**
   * Dispatching on {@code table} stopped for good in this dispatcher: one of its threads failed
   * with {@code cause} (an {@link Error}) on every try for a whole lease. It no longer claims or
   * renews, so other instances take its rows over one lease later; restart the process.
   *
   * @param table the table no longer dispatched
   * @param cause the error its thread failed with
   */
  default void tableStopped(String table, Throwable cause) {}

  /**
   * A claim or an outcome write on {@code table} hit a deadlock, a lock wait timeout or a busy
   * database and is retried after a short jittered pause; {@code operation} is {@code "claim"} or
   * {@code "outcome"}. Expected now and then under contention (MySQL/MariaDB deadlocks, SQLite
   * busy); a steady rate is worth a look.
   *
   * @param table the table the statement ran on
   * @param operation {@code "claim"} or {@code "outcome"}
   * @param error the database's error
   */
  default void retried(String table, String operation, SQLException error) {}

  /**
   * Jobs named {@code name} have been due on {@code table} for longer than a lease, and this
   * dispatcher has no handler for that name, so it never claims them: they wait for a dispatcher
   * that has one. Called once per name per hour (with a WARN), from the dispatcher's own thread.
   *
   * @param table the job table
   * @param name the job name no handler here runs
   * @param waiting how many such jobs were seen (among the oldest 10,000 overdue jobs)
   * @param dueSince when the oldest of them became due, by the database clock
   */
  default void jobsWithoutHandler(String table, String name, long waiting, Instant dueSince) {}
}

package dev.postbox;

import dev.postbox.internal.Require;
import java.time.Duration;

/**
 * A job handler with its own timeout, or with none, whatever the job queue's: made by {@link
 * JobHandler#timeout} and {@link JobHandler#noTimeout}. Runs the handler it wraps.
 */
final class TimedJobHandler implements JobHandler {
  private final JobHandler handler;
  private final Duration timeout; // null: none

  private TimedJobHandler(JobHandler handler, Duration timeout) {
    this.handler = handler;
    this.timeout = timeout;
  }

  /** {@code handler} (unwrapped if it has a timeout of its own already) with {@code timeout}. */
  static JobHandler of(JobHandler handler, Duration timeout) {
    JobHandler inner = handler instanceof TimedJobHandler t ? t.handler : handler;
    return new TimedJobHandler(inner, timeout);
  }

  /** {@code timeout} if it is a valid timeout of a job attempt. */
  static Duration valid(Duration timeout) {
    return Require.between("timeout", timeout, Duration.ofSeconds(1), Duration.ofDays(7));
  }

  /**
   * How long an attempt of {@code handler} may run: its own timeout or none if it has one, else
   * {@code queueTimeout}; null for no limit.
   */
  static Duration timeoutOf(JobHandler handler, Duration queueTimeout) {
    return handler instanceof TimedJobHandler t ? t.timeout : queueTimeout;
  }

  @Override
  public String name() {
    return handler.name();
  }

  @Override
  public void execute(String payload) throws Exception {
    handler.execute(payload);
  }

  @Override
  public void execute(JobContext job) throws Exception {
    handler.execute(job);
  }

  @Override
  public String toString() {
    return handler + (timeout == null ? " without timeout" : " with timeout " + timeout);
  }
}

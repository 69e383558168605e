package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import java.time.Duration;

/**
 * Runs the durable jobs of one name: return normally to finish a job, throw to have it retried with
 * backoff, throw {@link RejectedMessageException#permanent} to park it at once. Jobs run at least
 * once: make the handler idempotent.
 *
 * <p>Called by the dispatcher on its own virtual thread per job, concurrently with other jobs,
 * never inside a database transaction; a timeout ({@link #timeout}, {@link Jobs.Builder#timeout})
 * or {@link Dispatcher#close()} interrupts it. Implement {@link #execute(JobContext)} or {@link
 * #execute(String)}, or write a lambda with {@link #of}. Guide: {@code docs/jobs.md}.
 */
public interface JobHandler {

  /**
   * {@return the job name this handler runs, as given to {@link Job#of(String, String)}; same
   * rules}
   */
  String name();

  /**
   * Runs one job with its payload. Called by the default {@link #execute(JobContext)}; a handler
   * that implements that one need not implement this; the default throws {@link
   * UnsupportedOperationException}, so every attempt fails and the job is parked after its last.
   *
   * @param payload the job's payload
   * @throws Exception to have the job retried, or parked after its last attempt
   */
  default void execute(String payload) throws Exception {
    throw new UnsupportedOperationException(
        "job handler '" + name() + "' implements neither execute(JobContext) nor execute(String)");
  }

  /**
   * Runs one attempt of a job. By default runs {@link #execute(String)} with the job's payload.
   *
   * @param job the job and this attempt
   * @throws Exception to have the job retried, or parked after its last attempt
   */
  default void execute(JobContext job) throws Exception {
    execute(job.payload());
  }

  /**
   * This handler with a timeout of its own, instead of the job queue's ({@link
   * Jobs.Builder#timeout}): an attempt still running {@code timeout} after it started is
   * interrupted and counts as failed. What a timed-out attempt does: {@code
   * docs/jobs.md#what-a-job-promises}.
   *
   * @param timeout the longest an attempt may run, 1 s to 7 days
   * @return a handler that runs this one with that timeout
   * @throws InvalidValueException if the timeout is null or out of range
   */
  default JobHandler timeout(Duration timeout) {
    return TimedJobHandler.of(this, TimedJobHandler.valid(timeout));
  }

  /**
   * {@return this handler without a timeout, even if the job queue has one ({@link
   * Jobs.Builder#timeout}): its attempts run as long as they take}
   */
  default JobHandler noTimeout() {
    return TimedJobHandler.of(this, null);
  }

  /**
   * A handler for the jobs called {@code name} that runs {@code action}, for example {@code
   * JobHandler.of("send-email", job -> mailer.send(job.payload()))}.
   *
   * @param name the job name it runs
   * @param action what it does with each attempt
   * @return the handler
   * @throws InvalidValueException if the name breaks the job name rules or the action is null
   */
  static JobHandler of(String name, Action action) {
    Rules.name("name", name);
    Require.notNull("action", action);
    return new JobHandler() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void execute(JobContext job) throws Exception {
        action.execute(job);
      }

      @Override
      public String toString() {
        return "JobHandler[" + name + "]";
      }
    };
  }

  /**
   * What a handler built by {@link #of} does with one attempt of a job.
   *
   * <p>Called as {@link JobHandler#execute(JobContext)} is: on a delivery thread, concurrently with
   * other jobs, outside any transaction.
   */
  @FunctionalInterface
  interface Action {
    /**
     * Runs one attempt of {@code job}.
     *
     * @param job the job and this attempt
     * @throws Exception to have the job retried, or parked after its last attempt
     */
    void execute(JobContext job) throws Exception;
  }
}

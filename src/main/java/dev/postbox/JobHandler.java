package dev.postbox;

/**
 * Runs the durable jobs of one name.
 *
 * <p>Called by the dispatcher on its own virtual thread per job, concurrently with other jobs,
 * never inside a database transaction. Return normally to finish the job; throw to have it retried
 * with backoff. Jobs run at least once: make {@link #execute} idempotent. Interrupted when the
 * dispatcher shuts down.
 */
public interface JobHandler {

  /** The job name this handler runs, as given to {@link Job#of(String, String)}. */
  String name();

  /** Runs one job with its payload. */
  void execute(String payload) throws Exception;
}

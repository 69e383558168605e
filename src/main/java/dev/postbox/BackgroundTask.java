package dev.postbox;

/**
 * A unit of in-process work for a {@link BackgroundQueue}: no arguments, no result, may throw.
 *
 * <p>Runs once, on its own fresh virtual thread, with the SLF4J MDC of the thread that enqueued it;
 * it should respond to interruption, which is how {@link BackgroundQueue#close()} stops it after
 * the drain timeout. Guide: {@code docs/background-queue.md}.
 */
@FunctionalInterface
public interface BackgroundTask {

  /**
   * Does the work.
   *
   * @throws Exception if the work failed; it is logged at WARN and counted as failed by the queue
   */
  void run() throws Exception;
}

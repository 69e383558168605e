package dev.postbox.bench.lockfree;

import dev.postbox.BackgroundQueue;
import dev.postbox.BackgroundTask;
import java.time.Duration;

/**
 * The benchmark's baseline: {@code BackgroundQueue} as it was built up to commit 5783e2f, a
 * lock-free queue whose permits and line share one atomic word, copied here (test scope only) so
 * that the benchmark runs it side by side with today's queue. The classes of this package are that
 * design's, unchanged but for their package; only its builder and shutdown hook are left out.
 *
 * <p>Thread-safe, as the original: any number of threads may enqueue at once.
 */
public final class LockFreeBackgroundQueue implements AutoCloseable {
  private final QueueEngine engine;

  /** A queue with the given options, accepting tasks at once. */
  public LockFreeBackgroundQueue(String name, int workers, int capacity, Duration drainTimeout) {
    this.engine =
        new QueueEngine(new BackgroundQueueSettings(name, workers, capacity, drainTimeout, false));
  }

  /** Adds a task, waiting while the queue is full. */
  public void enqueue(BackgroundTask task) {
    engine.put(task, Long.MAX_VALUE);
  }

  /** The counts now, as {@link BackgroundQueue#stats()}. */
  public BackgroundQueue.Stats stats() {
    return engine.stats();
  }

  /** Runs the queued tasks for up to the drain timeout, then discards the rest. */
  @Override
  public void close() {
    engine.close();
  }
}

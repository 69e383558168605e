package dev.postbox.bench.lockfree;

import dev.postbox.BackgroundQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters behind {@link BackgroundQueue.Stats}: tasks accepted, and the one outcome each of
 * them ends in (completed, failed or discarded).
 *
 * <p>Thread-safe; counting never blocks. It does not decide who counts a task: a task is counted as
 * submitted before anyone can see it, and its outcome by whoever moves it out of its last open
 * phase (see {@link AcceptedTask}), so the sums are exact once the queue is closed.
 */
final class TaskCounts {
  private final LongAdder submitted = new LongAdder();
  private final LongAdder completed = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder discarded = new LongAdder();

  void submitted() {
    submitted.increment();
  }

  void completed() {
    completed.increment();
  }

  void failed() {
    failed.increment();
  }

  void discarded(int tasks) {
    discarded.add(tasks);
  }

  /** The counters now, with the tasks queued and running as {@code word} says. */
  BackgroundQueue.Stats snapshot(QueueWord word) {
    long s = word.get();
    return new BackgroundQueue.Stats(
        submitted.sum(),
        completed.sum(),
        failed.sum(),
        discarded.sum(),
        QueueWord.waiting(s),
        word.running(s));
  }
}

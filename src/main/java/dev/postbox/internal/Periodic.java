package dev.postbox.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One virtual thread running a few tasks, each at its own interval, until closed. */
public final class Periodic {
  private static final Logger log = LoggerFactory.getLogger(Periodic.class);

  /** A task and how often to run it. */
  public record Task(Duration every, Runnable action) {}

  private final List<Task> tasks;
  private final Thread thread;
  private volatile boolean stopped;

  public Periodic(String name, List<Task> tasks) {
    this.tasks = List.copyOf(tasks);
    this.thread = Thread.ofVirtual().name(name).unstarted(this::run);
  }

  public void start() {
    thread.start();
  }

  /**
   * Stops after the task now running, if any, and waits for that; returns true if the caller was
   * interrupted meanwhile (it still waits).
   */
  public boolean close() {
    stopWithoutWaiting();
    return Joins.join(thread, Duration.ofDays(1));
  }

  /** Stops after the task now running, if any, without waiting for it. */
  public void stopWithoutWaiting() {
    stopped = true;
    LockSupport.unpark(thread);
  }

  private void run() {
    long[] next = new long[tasks.size()];
    for (int i = 0; i < next.length; i++) {
      next[i] = System.nanoTime() + tasks.get(i).every().toNanos();
    }
    while (!stopped) {
      long now = System.nanoTime();
      long soonest = Long.MAX_VALUE;
      for (int i = 0; i < next.length && !stopped; i++) {
        if (now - next[i] >= 0) {
          runQuietly(tasks.get(i).action());
          next[i] = System.nanoTime() + tasks.get(i).every().toNanos();
        }
        soonest = Math.min(soonest, next[i]);
      }
      long wait = soonest - System.nanoTime();
      if (wait > 0 && !stopped) {
        LockSupport.parkNanos(wait);
      }
    }
  }

  private void runQuietly(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      log.warn("{} - task failed", thread.getName(), e);
    } catch (Throwable e) { // an Error must not end the thread: the next run may go through
      log.error("{} - task failed", thread.getName(), e);
    }
  }
}

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

  /** Stops after the task now running, if any. */
  public void close() throws InterruptedException {
    stopped = true;
    LockSupport.unpark(thread);
    thread.join();
  }

  public boolean stopped() {
    return stopped;
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

  private static void runQuietly(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      log.warn("periodic task failed", e);
    }
  }
}

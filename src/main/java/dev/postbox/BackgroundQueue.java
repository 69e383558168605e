package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.background.TaskQueue;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded in-process queue that runs {@link BackgroundTask}s on virtual threads, for side effects
 * that may be lost if the process dies; it never touches the database (a task enqueued inside a
 * transaction may run before it commits, and runs even if it rolls back).
 *
 * <p>Thread-safe: any number of threads may enqueue at once; at most {@code workers} tasks run at a
 * time, each on its own fresh virtual thread with the MDC of the thread that enqueued it, in the
 * order they were accepted. Unless built with {@code closeOnShutdown(false)}, a JVM shutdown hook
 * closes the queue. Guide: {@code docs/background-queue.md}.
 */
public final class BackgroundQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BackgroundQueue.class);

  private final String name;
  private final TaskQueue queue;
  private final Thread shutdownHook; // null: not closed on shutdown

  private BackgroundQueue(Builder b) {
    this.name = b.name;
    this.queue = new TaskQueue(b.name, b.workers, b.capacity, b.drainTimeout);
    this.shutdownHook = b.closeOnShutdown ? addShutdownHook(b.drainTimeout) : null;
    log.info(
        "{} - started, {} workers, capacity {}, drain timeout {}{}",
        name,
        b.workers,
        b.capacity,
        b.drainTimeout,
        shutdownHook == null ? "" : ", closed on JVM shutdown");
  }

  /**
   * Returns a builder with the defaults: 4 workers, capacity 1000, drain timeout 5 seconds.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Adds a task, waiting while {@code capacity} tasks already wait; safe from any thread, the
   * caller's MDC is captured now and set inside the task.
   *
   * @param task the task to run
   * @throws PostboxException if the queue is or gets closed, or the caller is interrupted while it
   *     waits (its interrupt status is kept)
   */
  public void enqueue(BackgroundTask task) {
    queue.put(Require.notNull("task", task), Long.MAX_VALUE);
  }

  /**
   * Adds a task if there is room within {@code timeout} ({@link Duration#ZERO}: now), as {@link
   * #enqueue} does.
   *
   * @param task the task to run
   * @param timeout how long to wait for room, not negative
   * @return true if the task was added; false if the queue stayed full for {@code timeout}
   */
  public boolean offer(BackgroundTask task, Duration timeout) {
    Require.notNull("timeout", timeout);
    if (timeout.isNegative()) {
      throw new InvalidValueException("timeout", "must not be negative but was " + timeout);
    }
    return queue.put(Require.notNull("task", task), TimeUnit.NANOSECONDS.convert(timeout));
  }

  /**
   * Counts of this queue's tasks, all taken at one moment; safe to call from any thread.
   *
   * @return the counts now
   */
  public Stats stats() {
    return queue.stats();
  }

  /**
   * Refuses new tasks, runs the queued ones for up to the drain timeout, then drops what is queued
   * and interrupts what runs (waiting up to one second more), counting both as discarded.
   *
   * <p>Idempotent: a later call waits for the first; an interrupted caller discards at once. Do not
   * call it from a task.
   */
  @Override
  public void close() {
    if (queue.close()) {
      log.info("{} - closed, {}", name, stats());
    }
    // after the drain: if the JVM began to exit meanwhile, the hook keeps it until close() ends
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // the hooks are running (maybe this one, closing the queue): nothing left to take out
      }
    }
  }

  /** A platform thread (pinning no carrier) that closes this queue at JVM exit; null if late. */
  private Thread addShutdownHook(Duration drainTimeout) {
    Runnable closing =
        () -> {
          log.info(
              "{} - JVM shutting down: closing, queued tasks run for up to {}", name, drainTimeout);
          close();
        };
    Thread hook = Thread.ofPlatform().name(name + "-shutdown").unstarted(closing);
    try {
      Runtime.getRuntime().addShutdownHook(hook);
      return hook;
    } catch (IllegalStateException shuttingDown) {
      log.warn(
          "{} - built while the JVM shuts down: not closed on shutdown; close it yourself", name);
      return null;
    }
  }

  /**
   * Counts of a {@link BackgroundQueue}'s tasks at one moment; every accepted task ends in exactly
   * one of completed, failed and discarded. Immutable.
   *
   * @param submitted tasks accepted by {@code enqueue}/{@code offer}
   * @param completed tasks that returned normally
   * @param failed tasks that threw (each logged at WARN, or ERROR for an {@link Error})
   * @param discarded tasks dropped from the queue or interrupted by {@code close()}
   * @param queued tasks waiting for a worker
   * @param running tasks holding a worker permit: starting, running or finishing
   */
  public record Stats(
      long submitted, long completed, long failed, long discarded, int queued, int running) {}

  /** Options, each validated as it is set; not thread-safe, and {@link #build()} copies them. */
  public static final class Builder {
    private String name = "background-queue";
    private int workers = 4;
    private int capacity = 1000;
    private Duration drainTimeout = Duration.ofSeconds(5);
    private boolean closeOnShutdown = true;

    private Builder() {}

    /**
     * Name used in logs and thread names (default {@code background-queue}); 1–100 chars.
     *
     * @param name the name, not blank
     * @return this builder
     */
    public Builder name(String name) {
      Require.notNull("name", name);
      if (name.isBlank() || name.length() > 100) {
        throw new InvalidValueException(
            "name", "must be 1 to 100 characters and not blank but was \"" + name + "\"");
      }
      this.name = name;
      return this;
    }

    /**
     * Tasks running at once (default 4, for I/O-bound side effects); 1 to 10000.
     *
     * @param workers the most tasks running at once
     * @return this builder
     */
    public Builder workers(int workers) {
      this.workers = Require.between("workers", workers, 1, 10_000);
      return this;
    }

    /**
     * Tasks waiting for a worker before {@code enqueue} blocks (default 1000); 1 to 1000000.
     *
     * @param capacity the most tasks waiting
     * @return this builder
     */
    public Builder capacity(int capacity) {
      this.capacity = Require.between("capacity", capacity, 1, 1_000_000);
      return this;
    }

    /**
     * How long {@code close()} keeps running queued tasks (default 5 s; 0 to 1 h).
     *
     * @param drainTimeout zero discards the queued tasks at once
     * @return this builder
     */
    public Builder drainTimeout(Duration drainTimeout) {
      this.drainTimeout =
          Require.between("drainTimeout", drainTimeout, Duration.ZERO, Duration.ofHours(1));
      return this;
    }

    /**
     * Whether a JVM shutdown hook closes the queue (default true), so tasks accepted when the JVM
     * exits, also when {@code main} returns, still run; false loses those still queued at exit.
     *
     * @param closeOnShutdown false to register no shutdown hook
     * @return this builder
     */
    public Builder closeOnShutdown(boolean closeOnShutdown) {
      this.closeOnShutdown = closeOnShutdown;
      return this;
    }

    /**
     * Creates the queue with a copy of these options.
     *
     * @return the queue, accepting tasks at once
     */
    public BackgroundQueue build() {
      return new BackgroundQueue(this);
    }
  }
}

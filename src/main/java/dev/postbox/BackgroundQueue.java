package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.background.CloseOnShutdown;
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
  // The working lives in dev.postbox.internal.background (see its package-info).
  private static final Logger log = LoggerFactory.getLogger(BackgroundQueue.class);

  private final String name;
  private final TaskQueue queue;
  private final CloseOnShutdown shutdownHook; // null: not closed on shutdown

  private BackgroundQueue(Builder b) {
    this.name = b.name;
    this.queue = new TaskQueue(b.name, b.workers, b.capacity, b.drainTimeout);
    this.shutdownHook =
        b.closeOnShutdown ? CloseOnShutdown.register(name, b.drainTimeout, this::close) : null;
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
   * Adds a task, waiting while {@code capacity} tasks already wait (backpressure).
   *
   * <p>Safe to call from any thread; the caller's MDC is captured now and set inside the task. How
   * a waiting caller is woken: {@code docs/background-queue.md#how-it-works}.
   *
   * @param task the task to run
   * @throws PostboxException if the queue is closed (also when it closes while the caller waits),
   *     or if the caller is interrupted while waiting (its interrupt status is kept)
   * @throws InvalidValueException if {@code task} is null
   */
  public void enqueue(BackgroundTask task) {
    put(Require.notNull("task", task), Long.MAX_VALUE);
  }

  /**
   * Adds a task if there is room within {@code timeout} ({@link Duration#ZERO}: now), and says
   * whether it did.
   *
   * <p>Safe to call from any thread; the caller's MDC is captured now and set inside the task.
   *
   * @param task the task to run
   * @param timeout how long to wait for room
   * @return true if the task was added; false if the queue stayed full for {@code timeout}
   * @throws PostboxException if the queue is closed or the caller is interrupted while waiting
   * @throws InvalidValueException if {@code task} or {@code timeout} is null, or {@code timeout} is
   *     negative
   */
  public boolean offer(BackgroundTask task, Duration timeout) {
    Require.notNull("timeout", timeout);
    if (timeout.isNegative()) {
      throw new InvalidValueException("timeout", "must not be negative but was " + timeout);
    }
    return put(Require.notNull("task", task), TimeUnit.NANOSECONDS.convert(timeout));
  }

  private boolean put(BackgroundTask task, long nanos) {
    TaskQueue.Put put;
    try {
      put =
          queue.put(
              () -> {
                task.run();
                return null;
              },
              nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PostboxException(name + " - interrupted while waiting for space; not enqueued", e);
    }
    if (put == TaskQueue.Put.CLOSED) {
      throw new PostboxException(name + " is closed; it accepts no new tasks");
    }
    return put == TaskQueue.Put.ACCEPTED;
  }

  /**
   * Counts of this queue's tasks, all taken at one moment; safe to call from any thread.
   *
   * @return the counts now
   */
  public Stats stats() {
    TaskQueue.Counts c = queue.counts();
    return new Stats(
        c.submitted(), c.completed(), c.failed(), c.discarded(), c.queued(), c.running());
  }

  /**
   * Stops accepting tasks at once, runs the queued ones for up to the drain timeout, then drops
   * what is still queued and interrupts what is still running, counting both as discarded.
   *
   * <p>Blocks until then, plus at most one second for interrupted tasks to end (one that ignores
   * the interrupt stays counted as discarded). Idempotent: a later call waits for the first. If the
   * caller is interrupted, it discards at once and returns without waiting, keeping the interrupt
   * status. Then it removes the queue's shutdown hook. Do not call it from a task.
   */
  @Override
  public void close() {
    if (queue.close()) {
      log.info("{} - closed, {}", name, stats());
    }
    // after the drain: if the JVM began to exit meanwhile, the hook keeps it until close() ends
    if (shutdownHook != null) {
      shutdownHook.remove();
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

  /**
   * Options of a {@link BackgroundQueue}, each validated as it is set.
   *
   * <p>Not thread-safe; {@link #build()} copies the options, so the queue never sees later changes.
   */
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
     * @throws InvalidValueException if the name is null, blank or too long
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
     * @throws InvalidValueException if the number is out of range
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
     * @throws InvalidValueException if the number is out of range
     */
    public Builder capacity(int capacity) {
      this.capacity = Require.between("capacity", capacity, 1, 1_000_000);
      return this;
    }

    /**
     * How long {@link BackgroundQueue#close()} keeps running queued tasks (default 5 s); zero
     * discards them at once; at most one hour.
     *
     * @param drainTimeout how long {@code close()} keeps running queued tasks
     * @return this builder
     * @throws InvalidValueException if the timeout is null, negative or over one hour
     */
    public Builder drainTimeout(Duration drainTimeout) {
      Require.notNull("drainTimeout", drainTimeout);
      this.drainTimeout =
          Require.between("drainTimeout", drainTimeout, Duration.ZERO, Duration.ofHours(1));
      return this;
    }

    /**
     * Whether a JVM shutdown hook closes the queue (default true), so that the tasks accepted when
     * the JVM exits (also when {@code main} returns: task threads are daemon threads) run for up to
     * the drain timeout. False leaves closing to you; tasks still queued at exit are then lost.
     *
     * @param closeOnShutdown false to register no shutdown hook
     * @return this builder
     */
    public Builder closeOnShutdown(boolean closeOnShutdown) {
      this.closeOnShutdown = closeOnShutdown;
      return this;
    }

    /**
     * Creates the queue with a copy of these options; it starts threads only for tasks.
     *
     * @return the queue, accepting tasks at once
     */
    public BackgroundQueue build() {
      return new BackgroundQueue(this);
    }
  }
}

package dev.postbox;

import dev.postbox.internal.Require;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded in-process queue that runs {@link BackgroundTask}s on virtual threads; its tasks live
 * only in memory and are lost if the process dies (use the durable job queue or the outbox when
 * they must not be). It never touches the database: a task enqueued inside a transaction may run
 * before that transaction commits, and runs even if it rolls back.
 *
 * <p>Thread-safe: any number of threads may enqueue at once; at most {@code workers} tasks run at a
 * time, each on its own fresh virtual thread with the MDC of the thread that enqueued it, and
 * {@link #enqueue} blocks its caller while {@code capacity} tasks are already waiting.
 *
 * <p>Every accepted task ends in exactly one of the counters of {@link Stats}: completed, failed
 * (it threw; logged at WARN with the exception) or discarded (dropped or interrupted by {@link
 * #close()}), so once {@code close()} has returned, {@code submitted == completed + failed +
 * discarded}. Waiting tasks get a worker in the order they were accepted.
 *
 * <p>Unless built with {@code closeOnShutdown(false)}, a JVM shutdown hook closes the queue when
 * the JVM exits (also when {@code main} returns: task threads are daemon threads), so the tasks
 * accepted so far get the drain timeout to run; {@link #close()} takes the hook out again.
 */
public final class BackgroundQueue implements AutoCloseable {
  // The algorithm lives in package-private classes, one concept each: QueueEngine (take a permit
  // or get in line, hand the permit on), QueueWord (the state in one atomic word), TaskSlots (the
  // line and the permit slots), ProducerGate (producers waiting for room), AcceptedTask (one task's
  // life cycle), TaskCounts and DrainOnClose (the close protocol), CloseOnShutdown (the JVM's exit
  // closes it). docs/background-queue.md says why it is built this way and what each alternative
  // measured.
  private static final Logger log = LoggerFactory.getLogger(BackgroundQueue.class);

  private final QueueEngine engine;
  private final CloseOnShutdown shutdownHook; // null: not closed on shutdown

  private BackgroundQueue(BackgroundQueueSettings settings) {
    this.engine = new QueueEngine(settings);
    this.shutdownHook =
        settings.closeOnShutdown() ? CloseOnShutdown.register(settings, engine::close) : null;
    log.info(
        "{} - started, {} workers, capacity {}, drain timeout {}{}",
        settings.name(),
        settings.workers(),
        settings.capacity(),
        settings.drainTimeout(),
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
   * Adds a task, waiting while the queue is full (backpressure).
   *
   * <p>Safe to call from any thread; the caller's MDC is captured now and set inside the task. A
   * waiting caller resumes once a quarter of the capacity (at most 256 places) is free, and at most
   * 0.2 ms after the first place frees: waking it for each single place would cost a busy queue
   * more than its tasks.
   *
   * @param task the task to run
   * @throws PostboxException if the queue is closed (also when it closes while the caller waits),
   *     or if the caller is interrupted while waiting (its interrupt status is kept)
   * @throws InvalidValueException if {@code task} is null
   */
  public void enqueue(BackgroundTask task) {
    engine.put(Require.notNull("task", task), Long.MAX_VALUE);
  }

  /**
   * Adds a task if there is room within {@code timeout}, and says whether it did.
   *
   * <p>Safe to call from any thread; {@link Duration#ZERO} never waits. The caller's MDC is
   * captured now and set inside the task.
   *
   * @param task the task to run
   * @param timeout how long to wait for room; {@link Duration#ZERO} to not wait
   * @return true if the task was added; false if the queue stayed full for {@code timeout}; the
   *     task was not added
   * @throws PostboxException if the queue is closed or the caller is interrupted while waiting
   * @throws InvalidValueException if {@code task} or {@code timeout} is null, or if {@code timeout}
   *     is negative
   */
  public boolean offer(BackgroundTask task, Duration timeout) {
    Require.notNull("timeout", timeout);
    if (timeout.isNegative()) {
      throw new InvalidValueException("timeout", "must not be negative but was " + timeout);
    }
    return engine.put(Require.notNull("task", task), TimeUnit.NANOSECONDS.convert(timeout));
  }

  /**
   * Counts of this queue's tasks; exact once {@link #close()} has returned.
   *
   * <p>Safe to call from any thread. While tasks are running, a task that is finishing may briefly
   * show both in {@code running} and in its outcome.
   *
   * @return the counts at this moment
   */
  public Stats stats() {
    return engine.stats();
  }

  /**
   * Stops accepting tasks at once, runs the queued ones for up to the drain timeout, then drops
   * what is still queued and interrupts what is still running, counting both as discarded.
   *
   * <p>Blocks until then, plus at most one second for interrupted tasks to end; a task that ignores
   * the interrupt keeps running but is counted as discarded, and its outcome is ignored.
   * Idempotent: a second call waits for the first to finish. Do not call it from a task.
   *
   * <p>If the calling thread is interrupted, it stops waiting: queued tasks are discarded and
   * running ones interrupted at once, {@code close()} returns without waiting for them to end, and
   * the interrupt status is kept.
   *
   * <p>Then it removes the queue's shutdown hook. Safe to call from a shutdown hook of your own:
   * the queue's hook, running at the same time, waits for this call, or this one for it.
   */
  @Override
  public void close() {
    engine.close();
    // after the drain: if the JVM began to exit meanwhile, the hook keeps it until close() ends
    if (shutdownHook != null) {
      shutdownHook.remove();
    }
  }

  /**
   * Counts of a {@link BackgroundQueue}'s tasks at one moment.
   *
   * <p>Immutable and thread-safe; a snapshot, not updated as tasks go on.
   *
   * @param submitted tasks accepted by {@code enqueue}/{@code offer}
   * @param completed tasks that returned normally
   * @param failed tasks that threw (each logged at WARN, or ERROR for an {@link Error})
   * @param discarded tasks dropped from the queue or interrupted by {@code close()}
   * @param queued tasks waiting for a worker
   * @param running tasks holding a worker permit: starting, running or just finished
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
     * Whether a JVM shutdown hook closes the queue (default true): when the JVM exits without
     * {@link BackgroundQueue#close()} having been called (also when {@code main} returns, since
     * task threads are daemon threads), the tasks accepted so far run for up to the drain timeout
     * and the counts of completed and discarded tasks are logged. False leaves closing to you (your
     * framework's stop callback): tasks still queued when the JVM exits are then lost without a
     * trace. The hook holds the queue until it is closed.
     *
     * @param closeOnShutdown false to register no shutdown hook
     * @return this builder
     */
    public Builder closeOnShutdown(boolean closeOnShutdown) {
      this.closeOnShutdown = closeOnShutdown;
      return this;
    }

    /**
     * Creates the queue; it starts threads only for tasks.
     *
     * @return the queue, accepting tasks at once
     */
    public BackgroundQueue build() {
      return new BackgroundQueue(
          new BackgroundQueueSettings(name, workers, capacity, drainTimeout, closeOnShutdown));
    }
  }
}

package dev.postbox.internal.background;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The working of a background queue: producers add tasks to a bounded line ({@link QueueState}),
 * and each task runs on its own virtual thread, started only once it holds one of the {@code
 * workers} permits of a {@link Semaphore}. There is no dispatcher thread: a producer that has added
 * a task, and a task that has ended and given its permit back, start queued tasks while permits are
 * free.
 *
 * <p>Thread-safe: any number of threads may {@link #put} at once, and {@link #close()} may be
 * called from any thread, more than once.
 */
public final class TaskQueue {
  // Named after the public class: that is the name users see in their logs and configure.
  private static final Logger log = LoggerFactory.getLogger("dev.postbox.BackgroundQueue");
  private static final Duration INTERRUPT_GRACE = Duration.ofSeconds(1);

  /** What became of a task put to the queue. */
  public enum Put {
    ACCEPTED,
    FULL,
    CLOSED
  }

  /** The counts of a queue's tasks at one moment, as {@code BackgroundQueue.Stats} shows them. */
  public record Counts(
      long submitted, long completed, long failed, long discarded, int queued, int running) {}

  private final String name;
  private final Duration drainTimeout;
  private final Semaphore permits;
  private final QueueState state;
  private final ClassLoader contextClassLoader = Thread.currentThread().getContextClassLoader();
  private final ThreadFactory taskThreads;
  private final CompletableFuture<Void> closed = new CompletableFuture<>();

  /** Builds a queue; its tasks get the calling thread's context class loader. */
  public TaskQueue(String name, int workers, int capacity, Duration drainTimeout) {
    this.name = name;
    this.drainTimeout = drainTimeout;
    this.permits = new Semaphore(workers);
    this.state = new QueueState(capacity);
    // No inherited thread-locals: each task starts clean and gets the MDC it was enqueued with.
    // One name for all: a numbered name per thread cost a quarter of the CPU of trivial tasks.
    this.taskThreads =
        Thread.ofVirtual().name(name + "-task").inheritInheritableThreadLocals(false).factory();
  }

  /**
   * Adds a task with the caller's MDC, waiting up to {@code nanos} ({@code Long.MAX_VALUE}: for
   * ever) while the line is full.
   *
   * @throws InterruptedException if the caller is interrupted while it waits
   */
  public Put put(Callable<?> task, long nanos) throws InterruptedException {
    Put put = state.add(new QueuedTask(this, task, MDC.getCopyOfContextMap()), nanos);
    // Without a free permit, the next task to end hands its permit on: no need to take the lock.
    if (put == Put.ACCEPTED && permits.availablePermits() > 0) {
      startWhilePermitsFree();
    }
    return put;
  }

  /** The counts now; exact once {@link #close()} has returned. */
  public Counts counts() {
    return state.counts();
  }

  /**
   * Refuses tasks from now on, waits up to the drain timeout for the queued and running ones, then
   * drops what is still queued and interrupts what is still running (waiting at most one second
   * more for those to end). Returns false, once the first call has finished, to every later call.
   */
  public boolean close() {
    if (!state.close()) {
      closed.join(); // ignores interrupts, and keeps the caller's interrupt status
      return false;
    }
    if (!state.awaitIdle(drainTimeout.toNanos())) {
      List<QueuedTask> running = new ArrayList<>();
      int queued = state.discardAll(running);
      running.forEach(QueuedTask::stop);
      if (queued + running.size() > 0) {
        log.warn(
            "{} - drain timeout {} passed: discarded {} queued tasks and interrupted {} running"
                + " ones",
            name,
            drainTimeout,
            queued,
            running.size());
      }
      if (!Thread.currentThread().isInterrupted()) {
        for (int i = state.awaitStopped(INTERRUPT_GRACE.toNanos()); i > 0; i--) {
          log.warn("{} - an interrupted task is still running; counted as discarded", name);
        }
      }
    }
    closed.complete(null);
    return true;
  }

  /** Starts queued tasks, in line order, while permits are free. */
  private void startWhilePermitsFree() {
    QueuedTask task;
    while ((task = state.next(permits)) != null) {
      start(task);
    }
  }

  private void start(QueuedTask task) {
    Thread thread = taskThreads.newThread(task);
    // The factory gives the system class loader (no inheritance); a normal thread would get the one
    // of the thread that built the queue, which matters in app servers.
    thread.setContextClassLoader(contextClassLoader);
    task.start(thread);
  }

  /** Logs a task's failure, at WARN (ERROR for an {@link Error}). */
  void logFailure(Throwable failure) {
    if (failure instanceof Exception) {
      log.warn("{} - task failed", name, failure);
    } else {
      log.error("{} - task failed", name, failure);
    }
  }

  /** Counts a task whose thread ends and starts the task its permit goes to, if any. */
  void ended(QueuedTask task, Throwable failure) {
    QueuedTask next = state.ended(task, failure, permits);
    if (next != null) {
      start(next);
    }
  }
}

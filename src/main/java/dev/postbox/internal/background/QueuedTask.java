package dev.postbox.internal.background;

import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.MDC;

/**
 * One task accepted by a background queue, with the MDC it was enqueued with; once it holds a
 * permit it runs as its own fresh virtual thread.
 *
 * <p>Its thread is set by the thread that starts it, and {@link #stop()} may be called by {@code
 * close()} at any time: both fields are volatile, so a task given up on before its thread runs
 * never runs its body, and one given up on while it runs is interrupted.
 */
final class QueuedTask implements Runnable {
  private final TaskQueue queue;
  private final Callable<?> body;
  private final Map<String, String> mdc;
  private volatile Thread thread;
  private volatile boolean stopped;

  QueuedTask(TaskQueue queue, Callable<?> body, Map<String, String> mdc) {
    this.queue = queue;
    this.body = body;
    this.mdc = mdc;
  }

  /** Starts {@code t}, an unstarted thread that runs this task. */
  void start(Thread t) {
    thread = t;
    t.start();
  }

  /** Gives up on this task: it does not start, or it is interrupted if it runs. */
  void stop() {
    stopped = true;
    // Written before thread is read, as start() writes thread before its run() reads stopped: if
    // this sees no thread yet, that thread will see stopped.
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  @Override
  public void run() {
    Throwable failure = null;
    try {
      if (!stopped) {
        // The MDC dies with this thread: the next task's thread does not inherit it.
        if (mdc != null) {
          MDC.setContextMap(mdc);
        }
        body.call();
      }
    } catch (Throwable e) {
      failure = e;
      if (!stopped) {
        queue.logFailure(e); // before the task ends: close() waits for the log line
      }
    } finally {
      queue.ended(this, failure);
    }
  }
}

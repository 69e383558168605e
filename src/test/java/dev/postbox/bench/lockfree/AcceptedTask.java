package dev.postbox.bench.lockfree;

import dev.postbox.BackgroundQueue;
import dev.postbox.BackgroundTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * One task accepted by a {@link BackgroundQueue}, with the MDC it was enqueued with; once it holds
 * a permit it runs as its own fresh virtual thread, then hands the permit on.
 *
 * <p>Its phase moves only forward, by compare-and-set: {@code NEW → RUNNING → DONE}, or to {@code
 * DISCARDED} by {@code close()}. Whoever moves it out of {@code NEW} or {@code RUNNING}, its own
 * thread (to {@code DONE}) or {@code close()} (to {@code DISCARDED}), counts it: nothing is counted
 * twice or lost.
 */
final class AcceptedTask implements Runnable {
  // Named after the public class: that is the name users see in their logs and configure.
  private static final Logger log = LoggerFactory.getLogger(BackgroundQueue.class);

  private static final int NEW = 0;
  private static final int RUNNING = 1;
  private static final int DONE = 2;
  private static final int DISCARDED = 3;

  private static final VarHandle PHASE;

  static {
    try {
      PHASE = MethodHandles.lookup().findVarHandle(AcceptedTask.class, "phase", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final QueueEngine engine;
  private final BackgroundTask task;
  private final Map<String, String> mdc;
  private volatile int phase = NEW;
  private volatile Thread thread; // set when it starts, before it can be RUNNING
  private int slot = -1; // published to its thread by Thread.start

  AcceptedTask(QueueEngine engine, BackgroundTask task, Map<String, String> mdc) {
    this.engine = engine;
    this.task = task;
    this.mdc = mdc;
  }

  /** Records the slot of the permit this task holds, before its thread starts. */
  void holdSlot(int slot) {
    this.slot = slot;
  }

  /** Drops this task if it has not started; true if this call did. */
  boolean discard() {
    return movePhase(NEW, DISCARDED);
  }

  /** Gives up on this task while it runs; true if this call did (it had not finished yet). */
  boolean discardRunning() {
    return movePhase(RUNNING, DISCARDED);
  }

  /** This task's thread; set once it is {@code RUNNING}. */
  Thread thread() {
    return thread;
  }

  private boolean movePhase(int from, int to) {
    return PHASE.compareAndSet(this, from, to);
  }

  @Override
  public void run() {
    thread = Thread.currentThread();
    try {
      if (movePhase(NEW, RUNNING)) {
        runTask();
      }
    } finally {
      if (phase != DISCARDED) {
        engine.passPermit(slot); // else close() took the permit back
      }
    }
  }

  private void runTask() {
    thread.setContextClassLoader(engine.contextClassLoader());
    // The MDC dies with this thread: the next task's thread does not inherit it.
    if (mdc != null) {
      MDC.setContextMap(mdc);
    }
    Throwable failure = null;
    try {
      task.run();
    } catch (Throwable e) {
      failure = e;
    }
    if (!movePhase(RUNNING, DONE)) {
      return; // close() discarded it and counted it
    }
    TaskCounts counts = engine.counts();
    if (failure == null) {
      counts.completed();
    } else if (failure instanceof Exception) {
      counts.failed();
      log.warn("{} - task failed", engine.name(), failure);
    } else {
      counts.failed();
      log.error("{} - task failed", engine.name(), failure);
    }
  }
}

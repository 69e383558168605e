package dev.postbox.bench.lockfree;

import static dev.postbox.bench.lockfree.QueueWord.FREE;
import static dev.postbox.bench.lockfree.QueueWord.FREE_ONE;
import static dev.postbox.bench.lockfree.QueueWord.WAITING_ONE;
import static dev.postbox.bench.lockfree.QueueWord.isClosed;
import static dev.postbox.bench.lockfree.QueueWord.waiting;

import dev.postbox.BackgroundQueue;
import dev.postbox.BackgroundTask;
import dev.postbox.PostboxException;
import java.util.concurrent.ThreadFactory;
import org.slf4j.MDC;

/**
 * The working of a {@link BackgroundQueue} without a dispatcher thread: a producer takes a free
 * permit and starts its task's thread, or puts the task in line; a task that ends hands its permit
 * straight to the head of the line and starts that task's thread, or gives the permit back.
 *
 * <p>Thread-safe and lock-free on both paths: "take a permit or get in line" and "pass the permit
 * on or give it back" are each one compare-and-set on the {@link QueueWord}. Only a producer that
 * finds the queue full waits, in the {@link ProducerGate}.
 */
final class QueueEngine {
  private final BackgroundQueueSettings settings;
  private final ClassLoader contextClassLoader = Thread.currentThread().getContextClassLoader();
  private final ThreadFactory threads;
  private final QueueWord word;
  private final TaskSlots slots;
  private final ProducerGate gate;
  private final TaskCounts counts = new TaskCounts();
  private final DrainOnClose closing;

  /** Builds the parts of a queue on the calling thread, whose context class loader tasks get. */
  QueueEngine(BackgroundQueueSettings settings) {
    this.settings = settings;
    this.word = new QueueWord(settings.workers());
    this.slots = new TaskSlots(settings.workers());
    this.gate = new ProducerGate(word, settings);
    // No inherited thread-locals: each task starts clean and gets the MDC it was enqueued with.
    // With that flag the JDK would give the thread the system class loader, so each task is given
    // the one of the thread that built the queue, as a normal thread would inherit (app servers).
    this.threads =
        Thread.ofVirtual()
            .name(settings.name() + "-task")
            .inheritInheritableThreadLocals(false)
            .factory();
    this.closing = new DrainOnClose(settings, word, slots, gate, counts, this::releasePermit);
  }

  /**
   * Accepts a task, waiting up to {@code nanos} ({@code Long.MAX_VALUE}: for ever) while the queue
   * is full; false if it stayed full.
   *
   * @throws PostboxException if the queue is closed or the caller is interrupted while waiting
   */
  boolean put(BackgroundTask task, long nanos) {
    AcceptedTask accepted = new AcceptedTask(this, task, MDC.getCopyOfContextMap());
    boolean forever = nanos == Long.MAX_VALUE;
    boolean foundFull = false;
    long deadline = 0; // counted from when the queue is first found full
    for (; ; ) {
      long s = word.get();
      if (isClosed(s)) {
        throw new PostboxException(settings.name() + " is closed; it accepts no new tasks");
      }
      if ((s & FREE) != 0) {
        if (word.compareAndSet(s, s - FREE_ONE)) {
          counts.submitted();
          start(accepted, slots.takeFreeSlot());
          return true;
        }
      } else if (waiting(s) < settings.capacity()) {
        if (word.compareAndSet(s, s + WAITING_ONE)) {
          counts.submitted(); // before the task can be seen in line, for exact counts
          slots.joinLine(accepted);
          return true;
        }
      } else {
        if (!foundFull) {
          foundFull = true;
          deadline = System.nanoTime() + nanos; // may overflow; only differences are used
        }
        if (!gate.awaitRoom(forever, deadline)) {
          return false;
        }
      }
    }
  }

  /** Passes a finished task's permit to the head of the line, or gives it back. */
  void passPermit(int slot) {
    for (; ; ) {
      long s = word.get();
      if (waiting(s) == 0) {
        if (tryRelease(s, slot)) {
          return;
        }
      } else if (word.compareAndSet(s, s - WAITING_ONE)) {
        gate.placeFreed(s);
        start(slots.takeFromLine(), slot);
        return;
      }
    }
  }

  /** Gives a task the permit and slot it holds, then starts its thread. */
  private void start(AcceptedTask task, int slot) {
    if (!slots.fill(slot, task)) {
      if (task.discard()) {
        counts.discarded(1);
        releasePermit(slot);
      } // else close() saw it, dropped it and took its permit back
      return;
    }
    threads.newThread(task).start();
  }

  /** Gives a permit back, waiting out other threads' changes to the word. */
  private void releasePermit(int slot) {
    while (!tryRelease(word.get(), slot)) {
      Thread.onSpinWait();
    }
  }

  private boolean tryRelease(long s, int slot) {
    if (!word.compareAndSet(s, s + FREE_ONE)) {
      return false;
    }
    slots.free(slot);
    if (isClosed(s) && word.isIdle(s + FREE_ONE)) {
      closing.signalIdle();
    }
    return true;
  }

  /** The counters now; see {@link BackgroundQueue#stats()}. */
  BackgroundQueue.Stats stats() {
    return counts.snapshot(word);
  }

  /** See {@link BackgroundQueue#close()}. */
  void close() {
    closing.close();
  }

  String name() {
    return settings.name();
  }

  TaskCounts counts() {
    return counts;
  }

  ClassLoader contextClassLoader() {
    return contextClassLoader;
  }
}

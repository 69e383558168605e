package dev.postbox.bench.lockfree;

import static dev.postbox.bench.lockfree.QueueWord.isClosed;
import static dev.postbox.bench.lockfree.QueueWord.waiting;

import dev.postbox.BackgroundQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link BackgroundQueue} closes: refuse new tasks at once, let the queued ones run for up to
 * the drain timeout, then drop what is still queued and interrupt what is still running, counting
 * both as discarded.
 *
 * <p>Thread-safe: any number of threads may call {@link #close()}; the first does the work and the
 * others wait for it. It waits under a {@link ReentrantLock} (never {@code synchronized}: callers
 * may be virtual threads) and scans the tasks without one; tasks ending meanwhile only take the
 * lock to signal, through {@link #signalIdle()}, that the last of them has.
 */
final class DrainOnClose {
  // Named after the public class: that is the name users see in their logs and configure.
  private static final Logger log = LoggerFactory.getLogger(BackgroundQueue.class);

  /** How long {@link #close()} waits for interrupted tasks to end before it returns anyway. */
  private static final Duration INTERRUPT_GRACE = Duration.ofSeconds(1);

  private final String name;
  private final Duration drainTimeout;
  private final QueueWord word;
  private final TaskSlots slots;
  private final ProducerGate gate;
  private final TaskCounts counts;
  private final IntConsumer releasePermit;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition(); // also signalled on termination
  private boolean terminated; // guarded by lock

  DrainOnClose(
      BackgroundQueueSettings settings,
      QueueWord word,
      TaskSlots slots,
      ProducerGate gate,
      TaskCounts counts,
      IntConsumer releasePermit) {
    this.name = settings.name();
    this.drainTimeout = settings.drainTimeout();
    this.word = word;
    this.slots = slots;
    this.gate = gate;
    this.counts = counts;
    this.releasePermit = releasePermit;
  }

  /** See {@link BackgroundQueue#close()}. */
  void close() {
    if (isClosed(word.close())) {
      lock.lock();
      try {
        while (!terminated) {
          idle.awaitUninterruptibly();
        }
        return;
      } finally {
        lock.unlock();
      }
    }
    gate.wakeAll(); // waiting producers are refused
    List<Thread> interrupted = List.of();
    if (!awaitIdle(TimeUnit.NANOSECONDS.convert(drainTimeout))) {
      interrupted = discardRemaining();
    }
    // Tasks that had just finished are handing back their permits; interrupted ones are ending.
    long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(INTERRUPT_GRACE);
    awaitIdle(deadline - System.nanoTime());
    try {
      for (Thread thread : interrupted) {
        if (!thread.join(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
          log.warn("{} - an interrupted task is still running; counted as discarded", name);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    lock.lock();
    try {
      terminated = true;
      idle.signalAll();
    } finally {
      lock.unlock();
    }
    log.info("{} - closed, {}", name, counts.snapshot(word));
  }

  /** Called once the queue is closed and a permit given back has left it idle. */
  void signalIdle() {
    lock.lock();
    try {
      idle.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until nothing is queued or running; false on timeout or interrupt. */
  private boolean awaitIdle(long nanos) {
    lock.lock();
    try {
      while (!word.isIdle(word.get())) {
        if (nanos <= 0) {
          return false;
        }
        nanos = idle.awaitNanos(nanos);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops the queued tasks, interrupts the running ones and returns their threads.
   *
   * <p>Runs without the lock. It first makes every task that takes a slot from now on drop itself,
   * then takes every reservation of the line in one step (closed: no task joins the line any more,
   * and those tasks are ours to count), then scans the slots.
   */
  private List<Thread> discardRemaining() {
    slots.startDiscarding();
    int queued = waiting(word.takeWholeLine());
    for (int i = 0; i < queued; i++) {
      slots.takeFromLine();
    }
    List<Thread> interrupted = new ArrayList<>();
    int stopped = 0;
    for (int slot = 0; slot < slots.size(); slot++) {
      AcceptedTask task = slots.holder(slot);
      if (task == null) {
        continue;
      }
      // Phases only move forward, so NEW then RUNNING misses no task that has not counted itself.
      boolean running = !task.discard();
      if (running && !task.discardRunning()) {
        continue; // it has just finished and counted itself
      }
      stopped++;
      releasePermit.accept(slot);
      if (running) {
        task.thread().interrupt();
        interrupted.add(task.thread());
      }
    }
    counts.discarded(queued + stopped);
    if (queued + stopped > 0) {
      log.warn(
          "{} - drain timeout {} passed: discarded {} queued tasks and interrupted {} running ones",
          name,
          drainTimeout,
          queued,
          stopped);
    }
    return interrupted;
  }
}

package dev.postbox.bench.lockfree;

import dev.postbox.BackgroundQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Where a {@link BackgroundQueue} keeps its accepted tasks: the line of tasks waiting for a permit,
 * in the order they were accepted, and one numbered slot per permit holding the task that has it.
 *
 * <p>Thread-safe and lock-free. It holds tasks but does not count them: {@link QueueWord} does, and
 * whoever changes the count there owns the matching step here (a task counted in line is added or
 * taken by that thread; a slot taken is filled and freed by its holder or by {@code close()}).
 */
final class TaskSlots {
  // A task counted in the line may not be in it yet: its producer adds it just after counting it,
  // so whoever takes it out waits that moment. The same holds for a permit given back and its slot.
  private final ConcurrentLinkedQueue<AcceptedTask> line = new ConcurrentLinkedQueue<>();
  // The task holding each permit, so that close() can find the tasks to interrupt.
  private final AtomicReferenceArray<AcceptedTask> slots;
  private final FreeSlots freeSlots;
  private volatile boolean discarding; // set by close() once the drain timeout has passed

  TaskSlots(int workers) {
    this.slots = new AtomicReferenceArray<>(workers);
    this.freeSlots = new FreeSlots(workers);
  }

  /** Adds a task just counted in line. */
  void joinLine(AcceptedTask task) {
    line.offer(task);
  }

  /** Takes the head of the line, which the caller has just uncounted; waits if it is not in yet. */
  AcceptedTask takeFromLine() {
    AcceptedTask next;
    for (int spins = 0; (next = line.poll()) == null; spins++) {
      pause(spins);
    }
    return next;
  }

  /** Takes the number of a free slot for a permit just taken; waits if it is not back yet. */
  int takeFreeSlot() {
    int slot;
    for (int spins = 0; (slot = freeSlots.pop()) < 0; spins++) {
      pause(spins);
    }
    return slot;
  }

  /**
   * Puts a task in the slot of the permit it now holds; false if {@code close()} has started
   * discarding, in which case the caller must try to drop the task itself.
   */
  boolean fill(int slot, AcceptedTask task) {
    task.holdSlot(slot);
    slots.set(slot, task);
    // close() may have passed over this slot before it was filled; then the task is ours to drop.
    // The slot is written before discarding is read, and close() writes discarding before it reads
    // the slots (all volatile), so one of the two always sees the other.
    return !discarding;
  }

  /** Empties a slot whose permit was just given back and makes its number free again. */
  void free(int slot) {
    slots.set(slot, null);
    freeSlots.push(slot);
  }

  /** The number of slots: one per worker. */
  int size() {
    return slots.length();
  }

  /** The task holding {@code slot}, or null. */
  AcceptedTask holder(int slot) {
    return slots.get(slot);
  }

  /** Makes every task that fills a slot from now on drop itself; see {@link #fill}. */
  void startDiscarding() {
    discarding = true;
  }

  /** Waits for another thread between two of its steps: a few spins, then yields. */
  private static void pause(int spins) {
    if (spins < 64) {
      Thread.onSpinWait();
    } else {
      Thread.yield();
    }
  }
}

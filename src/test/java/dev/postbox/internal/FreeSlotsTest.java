package dev.postbox.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

class FreeSlotsTest {

  @Test
  void startsWithEveryIndexOnceAndSaysWhenEmpty() {
    FreeSlots slots = new FreeSlots(5);
    Set<Integer> taken = new TreeSet<>();
    for (int i = 0; i < 5; i++) {
      taken.add(slots.pop());
    }
    assertEquals(Set.of(0, 1, 2, 3, 4), taken);
    assertEquals(-1, slots.pop());
    slots.push(3);
    assertEquals(3, slots.pop());
    assertEquals(-1, slots.pop());
  }

  @Test
  void neverHandsOneIndexToTwoHoldersUnderContention() throws Exception {
    int size = 3;
    FreeSlots slots = new FreeSlots(size);
    AtomicIntegerArray holders = new AtomicIntegerArray(size);
    LongAdder clashes = new LongAdder();
    LongAdder taken = new LongAdder();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < 200_000; i++) {
                      int slot = slots.pop();
                      if (slot < 0) {
                        continue;
                      }
                      taken.increment();
                      if (holders.incrementAndGet(slot) != 1) {
                        clashes.increment();
                      }
                      holders.decrementAndGet(slot);
                      slots.push(slot);
                    }
                  }));
    }
    for (Thread thread : threads) {
      assertTrue(thread.join(Duration.ofSeconds(60)));
    }
    assertEquals(0, clashes.sum());
    assertTrue(taken.sum() > 0);
    Set<Integer> left = new TreeSet<>();
    for (int slot; (slot = slots.pop()) >= 0; ) {
      assertTrue(left.add(slot), "index " + slot + " twice on the stack");
    }
    assertEquals(Set.of(0, 1, 2), left);
  }
}

package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.postbox.BackgroundQueue.Stats;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A built {@link BackgroundQueue} keeps the options it was built with; null options are refused.
 */
class BackgroundQueueSettingsTest {
  private static final long DEADLINE_SECONDS = 10;
  private static final BackgroundTask NOTHING = () -> {};

  private final List<BackgroundQueue> queues = new ArrayList<>();
  private final List<CountDownLatch> gates = new ArrayList<>();

  @AfterEach
  void closeQueues() {
    gates.forEach(CountDownLatch::countDown);
    queues.forEach(BackgroundQueue::close);
  }

  @Test
  void changingTheBuilderAfterBuildChangesNothingAlreadyBuilt() throws Exception {
    BackgroundQueue.Builder builder =
        BackgroundQueue.builder().name("before").workers(2).capacity(3).drainTimeout(Duration.ZERO);
    BackgroundQueue built = keep(builder.build());
    builder.name("after").workers(5).capacity(7).drainTimeout(Duration.ofHours(1));

    assertEquals("before-task", fill(built, 2, 3));
    assertEquals(new Stats(5, 0, 0, 0, 3, 2), built.stats());
    // The original drain timeout of zero: close() discards at once instead of draining for an hour.
    Thread closer = Thread.ofVirtual().start(built::close);
    assertTrue(closer.join(Duration.ofSeconds(DEADLINE_SECONDS)), "close() drained");
    assertEquals(new Stats(5, 0, 0, 5, 0, 0), built.stats());

    // The same builder now builds a queue with the changed options.
    BackgroundQueue rebuilt = keep(builder.drainTimeout(Duration.ZERO).build());
    assertEquals("after-task", fill(rebuilt, 5, 7));
    assertEquals(new Stats(12, 0, 0, 0, 7, 5), rebuilt.stats());
  }

  @Test
  void everyBuilderOptionRefusesNullNamingTheOption() throws Exception {
    int checked = 0;
    for (Method option : BackgroundQueue.Builder.class.getDeclaredMethods()) {
      if (!Modifier.isPublic(option.getModifiers()) || option.getParameterCount() != 1) {
        continue;
      }
      if (option.getParameterTypes()[0].isPrimitive()) {
        continue;
      }
      InvocationTargetException thrown =
          assertThrows(
              InvocationTargetException.class,
              () -> option.invoke(BackgroundQueue.builder(), (Object) null),
              option.getName());
      InvalidValueException e =
          assertInstanceOf(InvalidValueException.class, thrown.getCause(), option.getName());
      assertEquals(option.getName(), e.field());
      assertEquals(option.getName() + " must not be null", e.getMessage());
      checked++;
    }
    assertEquals(2, checked, "options taking an object: name and drainTimeout");
  }

  /**
   * Occupies every worker of {@code queue} with a task that waits, then fills its line with
   * non-blocking offers; asserts both stop at the given bounds and returns the tasks' thread name.
   */
  private String fill(BackgroundQueue queue, int workers, int capacity) throws Exception {
    CountDownLatch started = new CountDownLatch(workers);
    CountDownLatch gate = new CountDownLatch(1);
    gates.add(gate);
    AtomicReference<String> threadName = new AtomicReference<>();
    for (int i = 0; i < workers; i++) {
      queue.enqueue(
          () -> {
            threadName.set(Thread.currentThread().getName());
            started.countDown();
            gate.await();
          });
    }
    if (!started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
      fail(workers + " tasks did not all start within " + DEADLINE_SECONDS + " s");
    }
    for (int i = 0; i < capacity; i++) {
      assertTrue(queue.offer(NOTHING, Duration.ZERO), "place " + (i + 1) + " of " + capacity);
    }
    assertFalse(queue.offer(NOTHING, Duration.ZERO), "a place beyond the capacity");
    assertFalse(queue.offer(NOTHING, Duration.ofMillis(20)), "a place beyond the capacity");
    assertEquals(workers, queue.stats().running());
    return threadName.get();
  }

  private BackgroundQueue keep(BackgroundQueue queue) {
    queues.add(queue);
    return queue;
  }
}

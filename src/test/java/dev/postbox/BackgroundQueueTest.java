package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.postbox.BackgroundQueue.Stats;
import dev.postbox.testing.CapturedStderr;
import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;

class BackgroundQueueTest {
  private static final long DEADLINE_SECONDS = 10;
  private static final BackgroundTask NOTHING = () -> {};
  private static MDCAdapter originalMdc;

  private final List<BackgroundQueue> queues = new ArrayList<>();

  // slf4j-simple's MDC is a no-op; install SLF4J's thread-local one so MDC can be observed.
  @BeforeAll
  static void useRealMdc() throws ReflectiveOperationException {
    originalMdc = MDC.getMDCAdapter();
    if (originalMdc instanceof NOPMDCAdapter) {
      setMdcAdapter(new BasicMDCAdapter());
    }
  }

  @AfterAll
  static void restoreMdc() throws ReflectiveOperationException {
    setMdcAdapter(originalMdc);
  }

  private static void setMdcAdapter(MDCAdapter adapter) throws ReflectiveOperationException {
    Method set = MDC.class.getDeclaredMethod("setMDCAdapter", MDCAdapter.class);
    set.setAccessible(true);
    set.invoke(null, adapter);
  }

  @AfterEach
  void closeQueues() {
    MDC.clear();
    queues.forEach(BackgroundQueue::close);
  }

  private BackgroundQueue queue(int workers, int capacity, Duration drainTimeout) {
    BackgroundQueue queue =
        BackgroundQueue.builder()
            .name("test")
            .workers(workers)
            .capacity(capacity)
            .drainTimeout(drainTimeout)
            .build();
    queues.add(queue);
    return queue;
  }

  @Test
  void producerBlocksWhileFullAndResumesWhenSpaceFrees() throws Exception {
    BackgroundQueue queue = queue(1, 2, Duration.ofSeconds(5));
    CountDownLatch gate = occupyTheWorker(queue);
    AtomicInteger ran = new AtomicInteger();
    queue.enqueue(ran::incrementAndGet);
    queue.enqueue(ran::incrementAndGet);

    AtomicBoolean returned = new AtomicBoolean();
    Thread producer =
        Thread.ofVirtual()
            .start(
                () -> {
                  queue.enqueue(ran::incrementAndGet);
                  returned.set(true);
                });
    awaitUntil(() -> isWaiting(producer), "producer blocked");
    assertFalse(returned.get());
    assertEquals(new Stats(3, 0, 0, 0, 2, 1), queue.stats());

    gate.countDown();
    assertTrue(producer.join(Duration.ofSeconds(DEADLINE_SECONDS)));
    assertTrue(returned.get());
    queue.close();
    assertEquals(new Stats(4, 4, 0, 0, 0, 0), queue.stats());
    assertEquals(3, ran.get());
  }

  @Test
  void producerWaitingForABatchOfPlacesResumesWhenASinglePlaceFrees() throws Exception {
    // A waiting producer first waits (at most 0.2 ms) to be woken by a batch of free places
    // (capacity / 4 here); one place freed during that wait must still let it resume.
    resumesWhenASinglePlaceFrees(Duration.ZERO);
  }

  @Test
  void producerAskingForASinglePlaceResumesWhenOneFrees() throws Exception {
    // 20 ms is not synchronisation: it lets the 0.2 ms wait for a batch end, so that the producer
    // has asked to be woken by the very next free place, which is the path under test here.
    resumesWhenASinglePlaceFrees(Duration.ofMillis(20));
  }

  private void resumesWhenASinglePlaceFrees(Duration pauseBeforeFreeing) throws Exception {
    BackgroundQueue queue = queue(1, 100, Duration.ZERO);
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch firstGate = new CountDownLatch(1);
    CountDownLatch secondStarted = new CountDownLatch(1);
    queue.enqueue(blocker(firstStarted, firstGate));
    await(firstStarted);
    queue.enqueue(blocker(secondStarted, new CountDownLatch(1)));
    for (int i = 0; i < 99; i++) {
      queue.enqueue(NOTHING);
    }
    Thread producer = Thread.ofVirtual().start(() -> queue.enqueue(NOTHING));
    awaitUntil(() -> isWaiting(producer), "producer blocked");
    Thread.sleep(pauseBeforeFreeing);

    firstGate.countDown(); // one place frees: the second blocker takes the worker and holds it
    await(secondStarted);
    assertTrue(producer.join(Duration.ofSeconds(DEADLINE_SECONDS)));
    assertEquals(new Stats(102, 1, 0, 0, 100, 1), queue.stats());
  }

  @Test
  void waitingTasksGetAWorkerInTheOrderTheyWereAccepted() throws Exception {
    BackgroundQueue queue = queue(1, 100, Duration.ofSeconds(5));
    CountDownLatch gate = occupyTheWorker(queue);
    List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < 100; i++) {
      int index = i;
      queue.enqueue(() -> ran.add(index));
    }
    gate.countDown();
    queue.close();
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      expected.add(i);
    }
    assertEquals(expected, ran);
  }

  @Test
  void runningTasksNeverExceedWorkers() {
    BackgroundQueue queue = queue(3, 1000, Duration.ofSeconds(10));
    AtomicInteger current = new AtomicInteger();
    AtomicInteger max = new AtomicInteger();
    CountDownLatch gate = new CountDownLatch(1);
    for (int i = 0; i < 300; i++) {
      queue.enqueue(
          () -> {
            max.accumulateAndGet(current.incrementAndGet(), Math::max);
            gate.await();
            Thread.yield();
            current.decrementAndGet();
          });
    }
    awaitUntil(() -> current.get() == 3, "3 tasks running");
    assertEquals(3, queue.stats().running());
    assertEquals(297, queue.stats().queued());

    gate.countDown();
    queue.close();
    assertEquals(3, max.get());
    assertEquals(new Stats(300, 300, 0, 0, 0, 0), queue.stats());
  }

  @Test
  void failingTaskIsLoggedWithItsExceptionAndCountedAndQueueKeepsRunning() throws Exception {
    BackgroundQueue queue = queue(2, 10, Duration.ofSeconds(5));
    CountDownLatch after = new CountDownLatch(1);
    String log =
        captureStderr(
            () -> {
              queue.enqueue(
                  () -> {
                    throw new IOException("checked boom");
                  });
              queue.enqueue(
                  () -> {
                    throw new IllegalStateException("unchecked boom");
                  });
              queue.enqueue(
                  () -> {
                    throw new AssertionError("error boom");
                  });
              awaitUntil(() -> queue.stats().failed() == 3, "3 failures counted");
              queue.enqueue(after::countDown);
              await(after);
              queue.close();
            });
    assertEquals(new Stats(4, 1, 3, 0, 0, 0), queue.stats());
    assertTrue(log.contains("WARN dev.postbox.BackgroundQueue - test - task failed"), log);
    assertTrue(log.contains("java.io.IOException: checked boom"), log);
    assertTrue(log.contains("java.lang.IllegalStateException: unchecked boom"), log);
    assertTrue(log.contains("ERROR dev.postbox.BackgroundQueue - test - task failed"), log);
    assertTrue(log.contains("java.lang.AssertionError: error boom"), log);
  }

  @Test
  void closeRefusesNewTasksAtOnceAndDrainsQueuedOnes() throws Exception {
    BackgroundQueue queue = queue(2, 100, Duration.ofSeconds(10));
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch gate = new CountDownLatch(1);
    queue.enqueue(blocker(started, gate));
    queue.enqueue(blocker(started, gate));
    await(started);
    AtomicInteger ran = new AtomicInteger();
    for (int i = 0; i < 20; i++) {
      queue.enqueue(ran::incrementAndGet);
    }

    Thread closer = Thread.ofVirtual().start(queue::close);
    awaitUntil(() -> closer.getState() == Thread.State.TIMED_WAITING, "close() draining");
    PostboxException refused = assertThrows(PostboxException.class, () -> queue.enqueue(NOTHING));
    assertEquals("test is closed; it accepts no new tasks", refused.getMessage());
    assertThrows(PostboxException.class, () -> queue.offer(NOTHING, Duration.ZERO));
    assertTrue(closer.isAlive());

    gate.countDown();
    assertTrue(closer.join(Duration.ofSeconds(DEADLINE_SECONDS)));
    assertEquals(20, ran.get());
    assertEquals(new Stats(22, 22, 0, 0, 0, 0), queue.stats());
  }

  @Test
  void zeroDrainTimeoutDiscardsQueuedTasksAndLogsTheCount() throws Exception {
    BackgroundQueue queue = queue(1, 100, Duration.ZERO);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    queue.enqueue(
        () -> {
          started.countDown();
          try {
            new CountDownLatch(1).await();
          } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
          }
        });
    await(started);
    AtomicInteger ran = new AtomicInteger();
    for (int i = 0; i < 10; i++) {
      queue.enqueue(ran::incrementAndGet);
    }

    String log = captureStderr(queue::close);
    await(interrupted);
    assertEquals(0, ran.get());
    assertEquals(new Stats(11, 0, 0, 11, 0, 0), queue.stats());
    assertTrue(
        log.contains(
            "WARN dev.postbox.BackgroundQueue - test - drain timeout PT0S passed:"
                + " discarded 10 queued tasks and interrupted 1 running ones"),
        log);
  }

  @Test
  void runningTasksAreInterruptedAfterTheDrainTimeoutAndCountedAsDiscarded() throws Exception {
    BackgroundQueue queue = queue(2, 100, Duration.ofMillis(200));
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch interrupted = new CountDownLatch(2);
    AtomicInteger ran = new AtomicInteger();
    queue.enqueue(ran::incrementAndGet);
    awaitUntil(() -> queue.stats().completed() == 1, "first task completed");
    for (int i = 0; i < 2; i++) {
      queue.enqueue(
          () -> {
            started.countDown();
            try {
              new CountDownLatch(1).await();
            } catch (InterruptedException e) {
              interrupted.countDown();
              throw e;
            }
          });
    }
    await(started);
    for (int i = 0; i < 3; i++) {
      queue.enqueue(ran::incrementAndGet);
    }

    captureStderr(queue::close);
    await(interrupted);
    assertEquals(1, ran.get());
    assertEquals(new Stats(6, 1, 0, 5, 0, 0), queue.stats());
  }

  @Test
  void taskIgnoringTheInterruptIsCountedAsDiscardedAndItsOutcomeIgnored() throws Exception {
    BackgroundQueue queue = queue(1, 10, Duration.ZERO);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(1);
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    AtomicReference<Thread> thread = new AtomicReference<>();
    queue.enqueue(
        () -> {
          thread.set(Thread.currentThread());
          started.countDown();
          while (true) {
            try {
              release.await();
              break;
            } catch (InterruptedException e) {
              sawInterrupt.set(true);
            }
          }
          finished.countDown();
        });
    await(started);

    String log = captureStderr(queue::close);
    assertTrue(sawInterrupt.get());
    assertTrue(
        log.contains("test - an interrupted task is still running; counted as discarded"), log);
    assertEquals(new Stats(1, 0, 0, 1, 0, 0), queue.stats());

    release.countDown();
    await(finished);
    assertTrue(thread.get().join(Duration.ofSeconds(DEADLINE_SECONDS)));
    assertEquals(new Stats(1, 0, 0, 1, 0, 0), queue.stats());
  }

  @Test
  void producerWaitingForSpaceIsRefusedWhenTheQueueCloses() throws Exception {
    BackgroundQueue queue = queue(1, 1, Duration.ZERO);
    CountDownLatch started = new CountDownLatch(1);
    queue.enqueue(blocker(started, new CountDownLatch(1)));
    await(started);
    queue.enqueue(NOTHING);
    AtomicReference<Throwable> producerError = new AtomicReference<>();
    Thread producer =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    queue.enqueue(NOTHING);
                  } catch (Throwable e) {
                    producerError.set(e);
                  }
                });
    awaitUntil(() -> isWaiting(producer), "producer blocked");

    captureStderr(queue::close);
    assertTrue(producer.join(Duration.ofSeconds(DEADLINE_SECONDS)));
    assertEquals(PostboxException.class, producerError.get().getClass());
    assertEquals("test is closed; it accepts no new tasks", producerError.get().getMessage());
    assertThrows(PostboxException.class, () -> queue.enqueue(NOTHING));
    assertThrows(PostboxException.class, () -> queue.offer(NOTHING, Duration.ofSeconds(1)));
    assertEquals(new Stats(2, 0, 0, 2, 0, 0), queue.stats());
  }

  @Test
  void offerReturnsFalseWhenStillFullAfterItsTimeout() throws Exception {
    BackgroundQueue queue = queue(1, 1, Duration.ofSeconds(5));
    CountDownLatch gate = occupyTheWorker(queue);
    assertTrue(queue.offer(NOTHING, Duration.ZERO));

    assertFalse(queue.offer(NOTHING, Duration.ofMillis(50)));
    assertFalse(queue.offer(NOTHING, Duration.ZERO));
    assertEquals(new Stats(2, 0, 0, 0, 1, 1), queue.stats());

    gate.countDown();
    assertTrue(queue.offer(NOTHING, Duration.ofSeconds(DEADLINE_SECONDS)));
    queue.close();
    assertEquals(new Stats(3, 3, 0, 0, 0, 0), queue.stats());
  }

  @Test
  void taskSeesTheMdcOfTheEnqueuingThreadAsItWasAtEnqueueTime() throws Exception {
    MDC.put("builtBy", "test"); // must not reach tasks through inherited thread-locals
    BackgroundQueue queue = queue(1, 10, Duration.ofSeconds(5));
    MDC.clear();
    CountDownLatch gate = occupyTheWorker(queue);
    AtomicReference<Map<String, String>> withMdc = new AtomicReference<>();
    AtomicReference<Map<String, String>> withoutMdc = new AtomicReference<>();

    MDC.put("requestId", "r-1");
    queue.enqueue(
        () -> {
          withMdc.set(MDC.getCopyOfContextMap());
          MDC.put("setInTask", "x");
        });
    MDC.put("requestId", "r-2");
    MDC.clear();
    queue.enqueue(() -> withoutMdc.set(MDC.getCopyOfContextMap()));
    gate.countDown();
    queue.close();

    assertEquals(Map.of("requestId", "r-1"), withMdc.get());
    assertTrue(withoutMdc.get() == null || withoutMdc.get().isEmpty(), "" + withoutMdc.get());
    assertEquals(new Stats(3, 3, 0, 0, 0, 0), queue.stats());
  }

  @Test
  void eachTaskRunsOnAFreshVirtualThreadSoThreadLocalsAreNotShared() {
    ThreadLocal<String> local = new ThreadLocal<>();
    InheritableThreadLocal<String> inheritable = new InheritableThreadLocal<>();
    inheritable.set("builder");
    BackgroundQueue queue = queue(1, 10, Duration.ofSeconds(5));
    inheritable.remove();
    AtomicReference<Thread> first = new AtomicReference<>();
    AtomicReference<Thread> second = new AtomicReference<>();
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    queue.enqueue(
        () -> {
          first.set(Thread.currentThread());
          seen.add(inheritable.get());
          local.set("first");
          inheritable.set("first");
        });
    queue.enqueue(
        () -> {
          second.set(Thread.currentThread());
          seen.add(local.get());
          seen.add(inheritable.get());
        });
    queue.close();

    assertNotSame(first.get(), second.get());
    assertTrue(first.get().isVirtual() && second.get().isVirtual());
    assertEquals("test-task", first.get().getName());
    assertEquals(Arrays.asList(null, null, null), seen);
  }

  @Test
  void countersAddUpExactlyAfter100000RandomTasks() throws Exception {
    BackgroundQueue queue = queue(8, 64, Duration.ofSeconds(30));
    long seed = System.nanoTime();
    LongAdder tallyCompleted = new LongAdder();
    LongAdder tallyFailed = new LongAdder();
    List<Thread> producers = new ArrayList<>();
    String log =
        captureStderr(
            () -> {
              for (int p = 0; p < 4; p++) {
                SplittableRandom random = new SplittableRandom(seed + p);
                producers.add(
                    Thread.ofVirtual()
                        .start(() -> produce(queue, random, 25_000, tallyCompleted, tallyFailed)));
              }
              for (Thread producer : producers) {
                assertTrue(producer.join(Duration.ofSeconds(DEADLINE_SECONDS)), "seed " + seed);
              }
              queue.close();
            });

    Stats stats = queue.stats();
    assertEquals(100_000, tallyCompleted.sum() + tallyFailed.sum(), "seed " + seed);
    assertEquals(
        new Stats(100_000, tallyCompleted.sum(), tallyFailed.sum(), 0, 0, 0),
        stats,
        "seed " + seed);
    assertTrue(stats.failed() > 0, "seed " + seed);
    assertEquals(stats.failed(), log.lines().filter(l -> l.endsWith("test - task failed")).count());
  }

  private static void produce(
      BackgroundQueue queue,
      SplittableRandom random,
      int tasks,
      LongAdder tallyCompleted,
      LongAdder tallyFailed) {
    for (int i = 0; i < tasks; i++) {
      int kind = random.nextInt(100);
      queue.enqueue(
          () -> {
            if (kind < 3) {
              tallyFailed.increment();
              throw kind == 0 ? new PlannedException() : new PlannedRuntimeException();
            }
            if (kind < 10) {
              Thread.yield();
            }
            tallyCompleted.increment();
          });
    }
  }

  @Test
  void countersAddUpExactlyWhenCloseCutsAFloodShort() throws Exception {
    BackgroundQueue queue = queue(4, 100, Duration.ZERO);
    LongAdder accepted = new LongAdder();
    LongAdder tallyCompleted = new LongAdder();
    LongAdder tallyFailed = new LongAdder();
    List<Thread> producers = new ArrayList<>();
    String log =
        captureStderr(
            () -> {
              for (int p = 0; p < 4; p++) {
                producers.add(
                    Thread.ofVirtual()
                        .start(() -> flood(queue, accepted, tallyCompleted, tallyFailed)));
              }
              awaitUntil(() -> queue.stats().completed() >= 200, "200 tasks completed");
              awaitUntil(() -> queue.stats().queued() == 100, "queue full");
              queue.close();
              for (Thread producer : producers) {
                assertTrue(producer.join(Duration.ofSeconds(DEADLINE_SECONDS)));
              }
            });
    Stats stats = queue.stats();
    assertEquals(accepted.sum(), stats.submitted());
    assertEquals(stats.submitted(), stats.completed() + stats.failed() + stats.discarded());
    assertTrue(stats.discarded() > 0, stats.toString());
    assertTrue(stats.completed() <= tallyCompleted.sum(), stats + " vs " + tallyCompleted);
    assertTrue(stats.failed() <= tallyFailed.sum(), stats + " vs " + tallyFailed);
    assertEquals(0, stats.queued());
    assertEquals(0, stats.running());
    assertTrue(log.contains("test - drain timeout PT0S passed: discarded "), log);
  }

  private static void flood(
      BackgroundQueue queue, LongAdder accepted, LongAdder tallyCompleted, LongAdder tallyFailed) {
    SplittableRandom random = new SplittableRandom();
    while (true) {
      boolean fail = random.nextInt(10) == 0;
      try {
        queue.enqueue(
            () -> {
              Thread.sleep(1);
              if (fail) {
                tallyFailed.increment();
                throw new PlannedException();
              }
              tallyCompleted.increment();
            });
      } catch (PostboxException closed) {
        return;
      }
      accepted.increment();
    }
  }

  @Test
  void countsStayExactWhenCloseRacesProducersAndFinishingTasks() throws Exception {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    String log =
        captureStderr(
            () -> {
              for (int cycle = 0; cycle < 300; cycle++) {
                closeDuringAFlood(random.split(), "seed " + seed + ", cycle " + cycle);
              }
            });
    assertFalse(log.contains("still running"), log); // no task ignores its interrupt here
  }

  /** One small queue flooded by producers that enqueue and offer, closed at a random moment. */
  private void closeDuringAFlood(SplittableRandom random, String what) throws Exception {
    int workers = 1 + random.nextInt(6);
    BackgroundQueue queue =
        queue(workers, 1 + random.nextInt(20), Duration.ofMillis(random.nextInt(5)));
    LongAdder accepted = new LongAdder();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    AtomicBoolean closeReturned = new AtomicBoolean();
    AtomicInteger startedAfterClose = new AtomicInteger();
    BackgroundTask task =
        () -> {
          if (closeReturned.get()) {
            startedAfterClose.incrementAndGet();
          }
          maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
          try {
            int kind = ThreadLocalRandom.current().nextInt(10);
            if (kind == 0) {
              throw new PlannedException();
            } else if (kind == 1) {
              Thread.sleep(1);
            } else if (kind == 2) {
              Thread.yield();
            }
          } finally {
            running.decrementAndGet();
          }
        };
    List<Thread> producers = new ArrayList<>();
    for (int p = 1 + random.nextInt(3); p > 0; p--) {
      boolean offers = random.nextBoolean();
      producers.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      while (true) {
                        if (!offers) {
                          queue.enqueue(task);
                        } else if (!queue.offer(task, Duration.ofNanos(50_000))) {
                          continue;
                        }
                        accepted.increment();
                      }
                    } catch (PostboxException closed) {
                      // the end of this producer
                    }
                  }));
    }
    long spins = random.nextInt(20_000);
    for (long i = 0; i < spins; i++) {
      Thread.onSpinWait();
    }
    queue.close();
    closeReturned.set(true);
    for (Thread producer : producers) {
      assertTrue(producer.join(Duration.ofSeconds(DEADLINE_SECONDS)), what);
    }
    Stats stats = queue.stats();
    assertEquals(accepted.sum(), stats.submitted(), what + ": " + stats);
    assertEquals(stats.submitted(), stats.completed() + stats.failed() + stats.discarded(), what);
    assertEquals(0, stats.queued(), what);
    assertEquals(0, stats.running(), what);
    assertEquals(0, startedAfterClose.get(), what);
    assertTrue(maxRunning.get() <= workers, what + ": " + maxRunning + " ran at once");
  }

  @Test
  void defaultsAreFourWorkersAndCapacity1000() throws Exception {
    BackgroundQueue queue = BackgroundQueue.builder().drainTimeout(Duration.ZERO).build();
    queues.add(queue);
    CountDownLatch started = new CountDownLatch(4);
    for (int i = 0; i < 4; i++) {
      queue.enqueue(blocker(started, new CountDownLatch(1)));
    }
    await(started);
    int accepted = 0;
    while (queue.offer(NOTHING, Duration.ZERO)) {
      accepted++;
    }
    assertEquals(1000, accepted);
    assertEquals(new Stats(1004, 0, 0, 0, 1000, 4), queue.stats());
    captureStderr(queue::close);
    assertEquals(new Stats(1004, 0, 0, 1004, 0, 0), queue.stats());
  }

  @Test
  void closeIsIdempotent() {
    BackgroundQueue queue = queue(2, 10, Duration.ofSeconds(5));
    queue.enqueue(NOTHING);
    queue.close();
    Stats stats = queue.stats();
    queue.close();
    assertEquals(stats, queue.stats());
    assertEquals(new Stats(1, 1, 0, 0, 0, 0), stats);
  }

  @Test
  void optionsAreValidatedAsTheyAreSet() {
    BackgroundQueue.Builder builder = BackgroundQueue.builder();
    assertInvalid(
        "workers", "workers must be between 1 and 10000 but was 0", () -> builder.workers(0));
    assertInvalid(
        "workers",
        "workers must be between 1 and 10000 but was 10001",
        () -> builder.workers(10_001));
    assertInvalid(
        "capacity", "capacity must be between 1 and 1000000 but was 0", () -> builder.capacity(0));
    assertInvalid(
        "drainTimeout",
        "drainTimeout must be between PT0S and PT1H but was PT-1S",
        () -> builder.drainTimeout(Duration.ofSeconds(-1)));
    assertInvalid(
        "drainTimeout",
        "drainTimeout must be between PT0S and PT1H but was PT1H0.001S",
        () -> builder.drainTimeout(Duration.ofHours(1).plusMillis(1)));
    assertInvalid(
        "drainTimeout", "drainTimeout must not be null", () -> builder.drainTimeout(null));
    assertInvalid("name", "name must not be null", () -> builder.name(null));
    assertInvalid(
        "name",
        "name must be 1 to 100 characters and not blank but was \" \"",
        () -> builder.name(" "));

    BackgroundQueue queue = queue(1, 1, Duration.ZERO);
    assertInvalid("task", "task must not be null", () -> queue.enqueue(null));
    assertInvalid("task", "task must not be null", () -> queue.offer(null, Duration.ZERO));
    assertInvalid("timeout", "timeout must not be null", () -> queue.offer(NOTHING, null));
    assertInvalid(
        "timeout",
        "timeout must not be negative but was PT-0.001S",
        () -> queue.offer(NOTHING, Duration.ofMillis(-1)));
    assertEquals(0, queue.stats().submitted());
  }

  private static void assertInvalid(String field, String message, Runnable call) {
    InvalidValueException e = assertThrows(InvalidValueException.class, call::run);
    assertEquals(field, e.field());
    assertEquals(message, e.getMessage());
  }

  /** Runs a task that holds a worker until the returned gate opens; returns once it runs. */
  private static CountDownLatch occupyTheWorker(BackgroundQueue queue) throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    queue.enqueue(blocker(started, gate));
    await(started);
    return gate;
  }

  private static BackgroundTask blocker(CountDownLatch started, CountDownLatch gate) {
    return () -> {
      started.countDown();
      gate.await();
    };
  }

  private static void await(CountDownLatch latch) throws InterruptedException {
    if (!latch.await(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
      fail("latch not released within " + DEADLINE_SECONDS + " s");
    }
  }

  private static boolean isWaiting(Thread thread) {
    Thread.State state = thread.getState();
    return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
  }

  private static void awaitUntil(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("not reached within " + DEADLINE_SECONDS + " s: " + what);
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  /** Runs {@code body} with System.err captured, where slf4j-simple writes, and returns it. */
  private static String captureStderr(ThrowingRunnable body) throws Exception {
    try (CapturedStderr err = CapturedStderr.start()) {
      body.run();
      return err.text();
    }
  }

  /** A planned failure without a stack trace, to keep the log of the flood tests short. */
  private static final class PlannedException extends Exception {
    private static final long serialVersionUID = 1L;

    PlannedException() {
      super("planned", null, false, false);
    }
  }

  private static final class PlannedRuntimeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PlannedRuntimeException() {
      super("planned", null, false, false);
    }
  }
}

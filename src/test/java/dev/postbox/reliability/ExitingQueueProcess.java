package dev.postbox.reliability;

import dev.postbox.BackgroundQueue;
import java.time.Duration;

/**
 * A plain {@code main} that enqueues 100 tasks on a {@link BackgroundQueue} (4 workers, each task
 * sleeping 5 ms, then printing {@code DONE <n>}), prints {@code ENQUEUED 100} and returns without
 * closing the queue, so the JVM exits while most tasks are still queued. Its argument says what
 * else it does: {@code returns} nothing; {@code app-hook} also registers a shutdown hook of its own
 * that closes the queue; {@code closed} closes the queue itself before returning; {@code opt-out}
 * builds the queue with {@code closeOnShutdown(false)} and tasks that never end (a drain would hold
 * the JVM for the hour-long drain timeout).
 */
public final class ExitingQueueProcess {
  static final int TASKS = 100;

  private ExitingQueueProcess() {}

  public static void main(String[] args) {
    String mode = args[0];
    boolean optOut = mode.equals("opt-out");
    BackgroundQueue queue =
        BackgroundQueue.builder()
            .name("exiting")
            .workers(4)
            .drainTimeout(optOut ? Duration.ofHours(1) : Duration.ofMinutes(1))
            .closeOnShutdown(!optOut)
            .build();
    if (mode.equals("app-hook")) {
      Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(queue::close));
    }
    for (int i = 0; i < TASKS; i++) {
      int n = i;
      queue.enqueue(
          () -> {
            Thread.sleep(optOut ? Long.MAX_VALUE : 5);
            System.out.println("DONE " + n);
          });
    }
    System.out.println("ENQUEUED " + TASKS);
    if (mode.equals("closed")) {
      queue.close();
    }
  }
}

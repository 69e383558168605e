package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.BackgroundQueue;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A {@link BackgroundQueue} the application never closes is drained when the JVM exits, as a hosted
 * queue is when its host stops: a child JVM whose {@code main} returns right after enqueuing 100
 * tasks ({@link ExitingQueueProcess}) completes all of them before it ends.
 */
class BackgroundQueueShutdownTest {

  private static Child.Ended run(String mode) throws IOException, InterruptedException {
    List<String> command = Child.javaCommand(ExitingQueueProcess.class, "info");
    command.add(mode);
    // generous: the drain takes well under a second; a hook that hangs would hold it for ever
    return Child.runToEnd(command, "exiting-queue-" + mode, Duration.ofSeconds(120));
  }

  private static long done(Child.Ended run) {
    return run.out().lines().filter(l -> l.startsWith("DONE ")).distinct().count();
  }

  @Test
  void tasksAcceptedBeforeMainReturnsAllCompleteWhenTheJvmExitsWithoutClose() throws Exception {
    // regression: the JVM exited with the queue's tasks still queued and lost them silently
    Child.Ended run = run("returns");
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(run.out().contains("ENQUEUED 100"), run.out());
    assertEquals(100, done(run), "tasks completed; stderr: " + run.err());
    assertTrue(
        run.err().contains("exiting - closed, Stats[submitted=100, completed=100"), run.err());
  }

  @Test
  void anApplicationHookThatClosesTheQueueToo() throws Exception {
    Child.Ended run = run("app-hook");
    assertEquals(0, run.exitCode(), run.err());
    assertEquals(100, done(run), "tasks completed; stderr: " + run.err());
  }

  @Test
  void aQueueClosedByTheApplicationLeavesNoHookBehind() throws Exception {
    Child.Ended run = run("closed");
    assertEquals(0, run.exitCode(), run.err());
    assertEquals(100, done(run), "tasks completed; stderr: " + run.err());
    assertFalse(run.err().contains("JVM shutting down"), run.err());
  }

  @Test
  void closeOnShutdownFalseRegistersNoHook() throws Exception {
    // its tasks never end and its drain timeout is an hour: a hook would keep the child alive
    Child.Ended run = run("opt-out");
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(run.out().contains("ENQUEUED 100"), run.out());
    assertEquals(0, done(run), "tasks completed");
    assertFalse(run.err().contains("JVM shutting down"), run.err());
  }
}

package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The timeout options: their ranges, and which timeout a job handler gets (its own, none, or the
 * job queue's).
 */
class JobTimeoutOptionsTest {
  private static final Duration QUEUE = Duration.ofMinutes(10);

  @Test
  void sendTimeoutIsBetweenOneSecondAndOneDay() {
    Dispatcher.Builder b = Dispatcher.builder(new org.h2.jdbcx.JdbcDataSource());
    assertRefused(
        "sendTimeout must be between PT1S and PT24H but was PT0.999S",
        () -> b.sendTimeout(Duration.ofMillis(999)));
    assertRefused(
        "sendTimeout must be between PT1S and PT24H but was PT24H0.001S",
        () -> b.sendTimeout(Duration.ofDays(1).plusMillis(1)));
    b.sendTimeout(Duration.ofSeconds(1)).sendTimeout(Duration.ofDays(1));
  }

  @Test
  void aJobTimeoutIsBetweenOneSecondAndSevenDays() {
    JobHandler handler = JobHandler.of("n", job -> {});
    for (Duration wrong : List.of(Duration.ZERO, Duration.ofDays(7).plusSeconds(1))) {
      String message = "timeout must be between PT1S and PT168H but was " + wrong;
      assertRefused(message, () -> Jobs.builder().timeout(wrong));
      assertRefused(message, () -> handler.timeout(wrong));
    }
    Jobs.builder().timeout(Duration.ofSeconds(1)).timeout(Duration.ofDays(7));
  }

  @Test
  void aHandlerHasItsOwnTimeoutOrNoneElseTheJobQueues() {
    JobHandler plain = JobHandler.of("n", job -> {});
    assertEquals(QUEUE, TimedJobHandler.timeoutOf(plain, QUEUE));
    assertNull(TimedJobHandler.timeoutOf(plain, null));
    JobHandler timed = plain.timeout(Duration.ofSeconds(30));
    assertEquals(Duration.ofSeconds(30), TimedJobHandler.timeoutOf(timed, QUEUE));
    assertEquals(Duration.ofSeconds(30), TimedJobHandler.timeoutOf(timed, null));
    assertNull(TimedJobHandler.timeoutOf(plain.noTimeout(), QUEUE));
    assertNull(TimedJobHandler.timeoutOf(timed.noTimeout(), QUEUE), "the last one set wins");
    assertEquals(
        Duration.ofSeconds(5),
        TimedJobHandler.timeoutOf(plain.noTimeout().timeout(Duration.ofSeconds(5)), QUEUE));
  }

  @Test
  void aHandlerWithATimeoutKeepsItsNameAndRunsTheHandler() throws Exception {
    List<String> ran = new ArrayList<>();
    JobHandler byContext = JobHandler.of("by-context", job -> ran.add(job.payload()));
    JobHandler byPayload =
        new JobHandler() {
          @Override
          public String name() {
            return "by-payload";
          }

          @Override
          public void execute(String payload) {
            ran.add(payload);
          }
        };
    JobContext job = new JobContext(1, "by-context", "a", 1, 5, null, null, Instant.EPOCH);
    JobHandler timed = byContext.timeout(Duration.ofSeconds(2)).noTimeout();
    assertEquals("by-context", timed.name());
    timed.execute(job);
    byPayload.timeout(Duration.ofSeconds(2)).execute("b");
    assertEquals(List.of("a", "b"), ran);
  }

  private static void assertRefused(String message, Executable call) {
    assertEquals(message, assertThrows(InvalidValueException.class, call).getMessage());
  }
}

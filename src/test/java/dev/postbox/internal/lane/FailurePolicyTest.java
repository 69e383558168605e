package dev.postbox.internal.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.RejectedMessageException;
import dev.postbox.internal.sql.Claimed;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** What a failed delivery comes to, decided without a database. */
class FailurePolicyTest {
  private final FakeClock clock = new FakeClock();
  private final Outage outage = new Outage(TestLanes.settings(), "t", clock);
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final FailurePolicy policy =
      new FailurePolicy(TestLanes.settings(), outage, "test", stopping::get);

  private Outcome.Kind kind(Claimed<?> row, Throwable e) {
    return policy.failure(row, e, 0, true).kind();
  }

  @Test
  void aFailureIsRetriedAfterTheBackoffUntilTheLastAttemptIsParked() {
    Outcome first = policy.failure(TestLanes.row(1, 1, false), new IOException("no"), 0, false);
    assertEquals(Outcome.Kind.FAILED, first.kind());
    assertEquals(Duration.ofMillis(10), first.delay());
    assertEquals(
        Outcome.Kind.PARKED, kind(TestLanes.row(2, 5, true), new IOException("no")), "attempt 5");
  }

  @Test
  void aPermanentRejectionOrAParkNowIsParkedAtOnce() {
    assertEquals(
        Outcome.Kind.PARKED,
        kind(TestLanes.row(1, 1, false), RejectedMessageException.permanent("never")));
    assertEquals(Outcome.Kind.PARKED, kind(TestLanes.row(2, 1, false), new ParkNow("defect")));
  }

  @Test
  void aRejectionIsCountedAndNeverEvidenceOfAnOutage() {
    for (long id = 1; id <= 5; id++) {
      assertEquals(
          Outcome.Kind.FAILED,
          kind(TestLanes.row(id, 1, false), new RejectedMessageException("no")));
    }
    assertTrue(outage.succeeding() && !outage.active(), "no outage from rejections");
  }

  @Test
  void failuresThatStartAnOutageAreRefundedAndRetriedAtTheNextProbe() {
    assertEquals(Outcome.Kind.FAILED, kind(TestLanes.row(1, 1, false), new IOException("down")));
    assertEquals(Outcome.Kind.FAILED, kind(TestLanes.row(2, 1, false), new IOException("down")));
    Outcome third = policy.failure(TestLanes.row(3, 1, false), new IOException("down"), 0, true);
    assertEquals(Outcome.Kind.REFUNDED, third.kind());
    assertEquals(TestLanes.POLL, third.delay(), "due again at the first probe");
    assertEquals(
        Outcome.Kind.REFUNDED,
        kind(TestLanes.row(4, 5, true), new IOException("down")),
        "even at its last attempt, a failure in an outage is refunded");
  }

  @Test
  void anInterruptWhileStoppingHandsTheRowBack() {
    stopping.set(true);
    assertEquals(
        Outcome.Kind.RELEASED,
        kind(TestLanes.row(1, 1, false), new IOException(new InterruptedException())));
    assertEquals(
        Outcome.Kind.FAILED,
        kind(TestLanes.row(2, 1, false), new IOException("no interrupt")),
        "a plain failure while stopping still counts");
  }

  @Test
  void aRowClaimedMoreOftenThanItsAttemptsWithoutAnOutcomeIsRefused() {
    assertNull(policy.refuse(TestLanes.row(1, 5, false), false));
    Outcome refused = policy.refuse(TestLanes.row(2, 6, false), false);
    assertEquals(Outcome.Kind.PARKED, refused.kind());
    assertTrue(
        refused.error().getMessage().contains("claimed 6 times"), refused.error().getMessage());
  }
}

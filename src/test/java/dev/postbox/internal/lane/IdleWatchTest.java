package dev.postbox.internal.lane;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The idle watch's proofs and the leases a broken claim may have left, on a test clock. */
class IdleWatchTest {
  private final FakeClock clock = new FakeClock();
  private final IdleWatch idle = new IdleWatch(clock);

  @Test
  void aProofCountsOnlyForAClaimStartedAfterTheWaitBegan() throws Exception {
    long before = idle.touched();
    idle.proved(before);
    long seen = idle.activity();
    assertFalse(idle.awaitProofAfter(seen, System.nanoTime(), () -> {}), "an older proof");
    long claim = idle.touched();
    idle.proved(claim);
    assertTrue(idle.awaitProofAfter(seen, System.nanoTime(), () -> {}));
  }

  @Test
  void afterAClaimThatMayHaveCommittedUnseenLeasesArePossibleForALease() {
    assertFalse(idle.unseenLeasesPossible());
    idle.claimMayHaveCommitted(Duration.ofSeconds(2));
    assertTrue(idle.unseenLeasesPossible());
    clock.advance(Duration.ofMillis(1999));
    assertTrue(idle.unseenLeasesPossible());
    clock.advance(Duration.ofMillis(1));
    assertFalse(idle.unseenLeasesPossible(), "the lease has passed");
  }

  @Test
  void anExtraClaimInFlightIsSeenUntilItEndsAndMovesTheActivity() {
    long at = idle.activity();
    idle.extraClaimStarted();
    assertTrue(idle.extraClaimInFlight());
    idle.extraClaimEnded();
    assertFalse(idle.extraClaimInFlight());
    assertTrue(idle.activity() > at);
  }

  @Test
  void aWaitingThreadAsksClaimsToSearchEverything() throws Exception {
    assertFalse(idle.awaited());
    boolean[] seenWaiting = {false};
    idle.awaitProofAfter(idle.activity(), System.nanoTime(), () -> seenWaiting[0] = idle.awaited());
    assertTrue(seenWaiting[0], "awaited while waiting");
    assertFalse(idle.awaited(), "not after");
  }
}

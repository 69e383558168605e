package dev.postbox.internal.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Listener;
import dev.postbox.internal.sql.Probe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The outage state machine, on a clock the test moves: no database, no waiting. */
class OutageTest {
  private final FakeClock clock = new FakeClock();
  private final List<String> events = new ArrayList<>();
  private final Listener listener =
      new Listener() {
        @Override
        public void outageStarted(String table) {
          events.add("started");
        }

        @Override
        public void outageEnded(String table, Duration outage) {
          events.add("ended after " + outage.toMillis() + " ms");
        }
      };
  private final Outage outage = new Outage(TestLanes.settings(true, listener), "t", clock);

  /** Fails rows 1, 2 and 3 for the first time: the threshold. */
  private void startOutage() {
    assertTrue(outage.failedAndCounts(1, false));
    assertTrue(outage.failedAndCounts(2, false));
    assertFalse(outage.failedAndCounts(3, false), "the third first failure is not counted");
  }

  @Test
  void healthyClaimsWholeBatchesAndOffersNoProbe() {
    assertEquals(10, outage.claimLimit(10));
    assertNull(outage.probes());
    assertTrue(outage.succeeding());
    assertFalse(outage.active());
  }

  @Test
  void threeDifferentFirstFailuresWithoutASuccessStartAnOutage() {
    startOutage();
    assertTrue(outage.active());
    assertEquals(List.of("started"), events);
    assertEquals(0, outage.claimLimit(10), "no claim before the first probe's pause has passed");
    assertFalse(outage.failedAndCounts(4, false), "failures during an outage are not counted");
  }

  @Test
  void aRowThatFailedBeforeIsNoEvidence() {
    for (long id = 1; id <= 10; id++) {
      assertTrue(outage.failedAndCounts(id, true), "row " + id + " counts");
    }
    assertFalse(outage.active());
    assertTrue(outage.succeeding(), "no evidence since the last success: extra claims go on");
  }

  @Test
  void aSuccessBetweenFailuresKeepsTheLaneHealthy() {
    outage.failedAndCounts(1, false);
    outage.failedAndCounts(2, false);
    outage.succeeded();
    assertTrue(outage.succeeding());
    assertTrue(outage.failedAndCounts(3, false));
    assertTrue(outage.failedAndCounts(4, false));
    assertFalse(outage.active());
  }

  @Test
  void probesGoOneAtATimeWithAPauseThatDoublesAfterEachFailedProbe() {
    startOutage();
    clock.advance(TestLanes.POLL);
    assertEquals(1, outage.claimLimit(10), "the first probe, a poll interval in");
    List<Probe> first = outage.probes();
    assertEquals(
        List.of(new Probe(List.of(), true, false), new Probe(List.of(), false, false)), first);
    outage.claimed(List.of(TestLanes.row(7, 1, false)));
    assertTrue(outage.probing());
    assertEquals(0, outage.claimLimit(10), "one probe in flight at a time");

    assertFalse(outage.failedAndCounts(7, false), "a failed probe is not counted");
    assertFalse(outage.probing());
    clock.advance(TestLanes.POLL);
    assertEquals(0, outage.claimLimit(10), "the pause doubled");
    clock.advance(TestLanes.POLL);
    assertEquals(1, outage.claimLimit(10));
    assertEquals(
        List.of(
            new Probe(List.of(7L), true, true),
            new Probe(List.of(7L), false, true),
            new Probe(List.of(), false, true)),
        outage.probes(),
        "the next probe excludes row 7 and takes the oldest end");
  }

  @Test
  void aProbeThatSucceedsEndsTheOutage() {
    startOutage();
    clock.advance(TestLanes.POLL);
    outage.claimLimit(10);
    outage.claimed(List.of(TestLanes.row(7, 1, false)));
    clock.advance(Duration.ofMillis(250));
    outage.succeeded();
    assertFalse(outage.active());
    assertTrue(outage.succeeding());
    assertEquals(List.of("started", "ended after 350 ms"), events);
    assertEquals(10, outage.claimLimit(10));
  }

  @Test
  void aProbeHandedBackLetsTheNextOneGoWithoutAPause() {
    startOutage();
    clock.advance(TestLanes.POLL);
    outage.claimLimit(10);
    outage.claimed(List.of(TestLanes.row(7, 1, false)));
    outage.ended(7);
    assertFalse(outage.probing());
    assertEquals(1, outage.claimLimit(10), "handed back, not failed: no longer pause");
  }

  @Test
  void aFailureOfARowThatIsNotTheProbeChangesNoPause() {
    startOutage();
    clock.advance(TestLanes.POLL);
    outage.claimLimit(10);
    outage.claimed(List.of(TestLanes.row(7, 1, false)));
    assertFalse(outage.failedAndCounts(8, false), "a send from before the outage, not counted");
    assertTrue(outage.probing(), "still waiting for the probe");
  }

  @Test
  void thePauseGrowsUpToThirtySecondsAndTheProbesRememberTheLastSixteen() {
    startOutage();
    Duration pause = TestLanes.POLL;
    for (long probe = 100; probe < 120; probe++) {
      clock.advance(pause);
      assertEquals(1, outage.claimLimit(10), "probe " + probe);
      outage.claimed(List.of(TestLanes.row(probe, 1, false)));
      outage.failedAndCounts(probe, false);
      pause =
          pause.multipliedBy(2).compareTo(Duration.ofSeconds(30)) > 0
              ? Duration.ofSeconds(30)
              : pause.multipliedBy(2);
    }
    clock.advance(Duration.ofSeconds(30).minusMillis(1));
    assertEquals(0, outage.claimLimit(10), "not before 30 s");
    clock.advance(Duration.ofMillis(1));
    assertEquals(1, outage.claimLimit(10), "capped at 30 s");
    assertEquals(Outage.PROBED_REMEMBERED, outage.probes().get(0).excluded().size());
    assertEquals(119L, outage.probes().get(0).excluded().getLast());
  }

  @Test
  void withoutOutageDetectionEveryFailureCounts() {
    Outage off = new Outage(TestLanes.settings(false, listener), "t", clock);
    for (long id = 1; id <= 10; id++) {
      assertTrue(off.failedAndCounts(id, false));
    }
    assertFalse(off.active());
    assertTrue(events.isEmpty());
  }
}

package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.postbox.reliability.LimitLedger.Run;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The limit checker's rule on hand-made run records (no database). */
class LimitLedgerTest {
  private static Run run(long job, String group, long start, Long end) {
    return new Run(
        job,
        "lim-" + job,
        "send-invoice",
        group,
        "d-1",
        Instant.ofEpochMilli(start),
        end == null ? null : Instant.ofEpochMilli(end));
  }

  private static int most(List<Run> runs) {
    return LimitLedger.mostAtOnce(LimitLedger.held(runs), Run::name).get("send-invoice");
  }

  @Test
  void overlappingRunsCountTogetherAndAnEndAtAStartFreesTheSlotFirst() {
    assertEquals(2, most(List.of(run(1, null, 0, 10L), run(2, null, 5, 15L))));
    assertEquals(1, most(List.of(run(1, null, 0, 10L), run(2, null, 10, 15L))));
  }

  @Test
  void aCutRunHoldsItsSlotUntilItsJobStartsAgain() {
    // job 1 cut at a kill, run again at 2000; job 2 runs meanwhile: two slots held at once
    List<Run> runs =
        List.of(run(1, null, 0, null), run(1, null, 2000, 2040L), run(2, null, 1000, 1040L));
    assertEquals(2, most(runs));
    // job 2 after job 1 ran again: one slot
    assertEquals(
        1,
        most(List.of(run(1, null, 0, null), run(1, null, 2000, 2040L), run(2, null, 2040, 2080L))));
    assertEquals(2000, LimitLedger.longestCutHoldMillis(LimitLedger.held(runs)));
  }

  @Test
  void aCutRunNeverRunAgainHoldsItsSlotForGood() {
    List<LimitLedger.Held> held =
        LimitLedger.held(List.of(run(1, null, 0, null), run(2, null, 5000, 5040L)));
    assertNull(held.stream().filter(h -> h.run().job() == 1).findFirst().orElseThrow().until());
    assertEquals(2, LimitLedger.mostAtOnce(held, Run::name).get("send-invoice"));
  }

  @Test
  void groupsAreCountedApartAndRunsWithoutAGroupLeftOut() {
    Map<String, Integer> most =
        LimitLedger.mostAtOnce(
            LimitLedger.held(
                List.of(
                    run(1, "tenant-0", 0, 10L),
                    run(2, "tenant-0", 5, 15L),
                    run(3, "tenant-1", 5, 15L),
                    run(4, null, 5, 15L))),
            Run::group);
    assertEquals(Map.of("tenant-0", 2, "tenant-1", 1), most);
  }
}

package dev.postbox.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunsTest {

  @Test
  void cutTakesTheFirstRowBehindEveryHeadBeforeTheSecondOnes() {
    List<List<Long>> runs = List.of(List.of(11L, 12L, 13L), List.of(21L), List.of(31L, 32L));
    assertEquals(List.of(List.of(11L, 12L), List.of(21L), List.of(31L, 32L)), Runs.cut(runs, 5));
    assertEquals(List.of(List.of(11L), List.of(21L), List.of(31L)), Runs.cut(runs, 3));
    assertEquals(List.of(List.of(11L), List.of(), List.of()), Runs.cut(runs, 1));
    assertEquals(runs, Runs.cut(runs, 100));
  }

  @Test
  void aRunEndsBeforeItsFirstRowThatCouldNotBeLocked() {
    List<List<Long>> runs = List.of(List.of(1L, 2L, 3L), List.of(7L, 8L));
    List<Claimed<String>> locked = List.of(row(1), row(3), row(7), row(8));
    List<Long> kept = Runs.unbroken(runs, locked).stream().map(Claimed::id).toList();
    assertEquals(List.of(1L, 7L, 8L), kept, "3 is behind 2, which another claim holds");
  }

  @Test
  void manyHeadsWithRoomForFewerThanFourRowsEachReadNoRuns() throws Exception {
    // 200 keyed heads, room for 299 more rows: one each at most, each a branch of the runs' read
    List<Claimed<String>> heads = new ArrayList<>();
    for (long id = 1; id <= 200; id++) {
      heads.add(row(id).as("k" + id, null, false, true));
    }
    // no statement is prepared: the connection is never used
    assertEquals(List.of(), Runs.plan(null, null, heads, 500));
    assertEquals(List.of(), Runs.plan(null, null, heads.subList(0, 17), 17 * 4));
  }

  private static Claimed<String> row(long id) {
    return new Claimed<>(id, 1, 1, 0, "e" + id, "t", "x");
  }
}

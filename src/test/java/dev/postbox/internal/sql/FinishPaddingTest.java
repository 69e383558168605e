package dev.postbox.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A finish binds its ids padded to a power of two, so its statement texts are few. */
class FinishPaddingTest {

  @Test
  void countsArePaddedToTheNextPowerOfTwoUpToTheMaximumOnly() {
    assertEquals(1, FinishTexts.paddedCount(1));
    assertEquals(2, FinishTexts.paddedCount(2));
    assertEquals(4, FinishTexts.paddedCount(3));
    assertEquals(128, FinishTexts.paddedCount(100));
    assertEquals(1024, FinishTexts.paddedCount(1000));
    assertEquals(1024, FinishTexts.paddedCount(FinishTexts.PADDED_MAX));
    assertEquals(1025, FinishTexts.paddedCount(FinishTexts.PADDED_MAX + 1));
  }

  @Test
  void paddingRepeatsTheLastIdAndLeavesAPowerOfTwoAsItIs() {
    assertEquals(List.of(5L, 6L, 7L, 7L), FinishTexts.padded(List.of(5L, 6L, 7L)));
    List<Long> four = List.of(1L, 2L, 3L, 4L);
    assertSame(four, FinishTexts.padded(four));
  }
}

package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.reliability.KeyOrderLedger.Row;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ordering checker's rule on hand-made histories of one key (no database). */
class KeyOrderLedgerTest {
  private static final long NEVER = Long.MAX_VALUE;

  @Test
  void sendsInCommitOrderAreNoInversion() {
    // commits [0,1] then [2,3]; first sent (id 10, ok) then second (id 11)
    assertEquals(
        0, KeyOrderLedger.inversions(List.of(new Row(0, 1, 10, 10), new Row(2, 3, 11, 11))));
  }

  @Test
  void aLaterCommitSentFirstIsOneInversion() {
    assertEquals(
        1, KeyOrderLedger.inversions(List.of(new Row(0, 1, 11, 11), new Row(2, 3, 10, 10))));
  }

  @Test
  void aSendBeforeTheEarlierMessageSucceededIsAnInversionEvenIfItWasTriedFirst() {
    // the earlier one was tried at 10 (failed) and succeeded only at 12; the later one went at 11
    assertEquals(
        1, KeyOrderLedger.inversions(List.of(new Row(0, 1, 10, 12), new Row(2, 3, 11, 11))));
  }

  @Test
  void aResendOfAnEarlierMessageAfterALaterOneIsNoInversion() {
    // the earlier one succeeded at 10; its re-send at 12 is not its first: only first sends count
    assertEquals(
        0, KeyOrderLedger.inversions(List.of(new Row(0, 1, 10, 10), new Row(2, 3, 11, 11))));
  }

  @Test
  void overlappingCommitsAreNotCompared() {
    assertEquals(
        0, KeyOrderLedger.inversions(List.of(new Row(0, 5, 11, 11), new Row(2, 7, 10, 10))));
  }

  @Test
  void aMessageNeverSentHoldsItsKeyForGood() {
    assertEquals(
        2,
        KeyOrderLedger.inversions(
            List.of(new Row(0, 1, NEVER, NEVER), new Row(2, 3, 10, 10), new Row(4, 5, 11, 11))));
  }

  @Test
  void aMessageNeverTriedIsNoInversion() {
    assertEquals(
        0, KeyOrderLedger.inversions(List.of(new Row(0, 1, 10, 10), new Row(2, 3, NEVER, NEVER))));
  }
}

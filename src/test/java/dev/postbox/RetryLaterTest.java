package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryLaterTest {
  @Test
  void aSnoozeCarriesItsDelayAndReason() {
    RetryLater later = RetryLater.in(Duration.ofSeconds(30), "429 from billing");
    assertEquals(Duration.ofSeconds(30), later.delay());
    assertEquals("429 from billing", later.getMessage());
    assertEquals(Duration.ZERO, RetryLater.in(Duration.ZERO).delay());
    assertEquals(Duration.ofDays(365), RetryLater.in(Duration.ofDays(365)).delay());
  }

  @Test
  void aDelayOutOfRangeOrNoReasonIsRefusedNamingTheField() {
    for (Duration bad : new Duration[] {null, Duration.ofMillis(-1), Duration.ofDays(366)}) {
      InvalidValueException e = assertThrows(InvalidValueException.class, () -> RetryLater.in(bad));
      assertTrue(e.getMessage().contains("delay"), e.getMessage());
    }
    InvalidValueException e =
        assertThrows(InvalidValueException.class, () -> RetryLater.in(Duration.ZERO, null));
    assertTrue(e.getMessage().contains("reason"), e.getMessage());
  }
}

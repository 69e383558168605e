package dev.postbox.internal.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.internal.lane.LaneCounts;
import dev.postbox.internal.lane.LaneCountsAccess;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RatesTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void reportsWhatTheCountersGrewByOverTheLastFiveMinutesOfSamples() {
    AtomicLong now = new AtomicLong();
    Rates rates = new Rates(now::get);
    LaneCounts counts = new LaneCounts();

    assertEquals(0L, rates.sample("t", counts).get("deliveredInWindow"));
    LaneCountsAccess.delivered(counts, 10);
    now.addAndGet(60 * SECOND);
    Map<String, Object> minute = rates.sample("t", counts);
    assertEquals(10L, minute.get("deliveredInWindow"));
    assertEquals(60L, minute.get("windowSeconds"));

    LaneCountsAccess.delivered(counts, 5);
    LaneCountsAccess.failed(counts);
    now.addAndGet(5 * 60 * SECOND); // the first sample is out of the window now
    Map<String, Object> later = rates.sample("t", counts);
    assertEquals(5L, later.get("deliveredInWindow"));
    assertEquals(1L, later.get("failedInWindow"));
    assertEquals(300L, later.get("windowSeconds"));
    assertEquals(15L, later.get("delivered"));
  }
}

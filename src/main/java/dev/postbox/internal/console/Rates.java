package dev.postbox.internal.console;

import dev.postbox.internal.lane.LaneCounts;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * What a dispatcher in this JVM finished in the last minutes, per table: the console keeps a sample
 * of its counters each time it reads them (at most one per second, for {@link #WINDOW_NANOS}) and
 * reports the difference from the oldest. No thread of its own. Thread-safe.
 */
final class Rates {
  static final long WINDOW_NANOS = 5 * 60 * 1_000_000_000L;
  private static final long SPACING_NANOS = 1_000_000_000L;

  private record Sample(long nanos, long delivered, long failed) {}

  private final LongSupplier clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, Deque<Sample>> samples = new HashMap<>();

  Rates() {
    this(System::nanoTime);
  }

  Rates(LongSupplier clock) {
    this.clock = clock;
  }

  /** The totals of {@code counts} and what they grew by in the window, kept as a sample. */
  Map<String, Object> sample(String table, LaneCounts counts) {
    long now = clock.getAsLong();
    Sample current = new Sample(now, counts.delivered(), counts.failed());
    Sample oldest;
    lock.lock();
    try {
      Deque<Sample> kept = samples.computeIfAbsent(table, t -> new ArrayDeque<>());
      while (kept.size() > 1 && now - kept.peekFirst().nanos() > WINDOW_NANOS) {
        kept.pollFirst();
      }
      if (kept.isEmpty() || now - kept.peekLast().nanos() >= SPACING_NANOS) {
        kept.addLast(current);
      }
      oldest = kept.peekFirst();
    } finally {
      lock.unlock();
    }
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("delivered", current.delivered());
    m.put("failed", current.failed());
    m.put("parked", counts.parked());
    m.put("deliveredInWindow", current.delivered() - oldest.delivered());
    m.put("failedInWindow", current.failed() - oldest.failed());
    m.put("windowSeconds", (now - oldest.nanos()) / 1_000_000_000L);
    return m;
  }
}

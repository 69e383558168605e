package dev.postbox.bench;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which of the {@code n} benchmark messages were delivered, how often, and when. Every benchmark
 * row carries its index: the event id is {@code e<index>} and the payload starts {@code
 * {"i":<index>,}, so the counting transport and the no-op job handler can both report it.
 *
 * <p>Thread-safe.
 */
final class Deliveries {
  private final int n;
  private final AtomicIntegerArray counts;
  private final AtomicLongArray committedAt;
  private final AtomicLongArray deliveredAt;
  private final AtomicLongArray unknown = new AtomicLongArray(1);

  Deliveries(int n) {
    this.n = n;
    this.counts = new AtomicIntegerArray(n);
    this.committedAt = new AtomicLongArray(n);
    this.deliveredAt = new AtomicLongArray(n);
  }

  static String eventId(int index) {
    return "e" + index;
  }

  /** A JSON payload of about 180 characters that starts with the index. */
  static String payload(int index) {
    return "{\"i\":" + index + ",\"pad\":\"" + "x".repeat(160) + "\"}";
  }

  static int indexOfEventId(String eventId) {
    return Integer.parseInt(eventId, 1, eventId.length(), 10);
  }

  static int indexOfPayload(String payload) {
    return Integer.parseInt(payload, 5, payload.indexOf(','), 10);
  }

  /** Notes that message {@code index} was committed, now. */
  void committed(int index) {
    committedAt.set(index, System.nanoTime());
  }

  /** Notes a delivery of message {@code index}, now. */
  void delivered(int index) {
    if (index < 0 || index >= n) {
      unknown.incrementAndGet(0);
      return;
    }
    long now = System.nanoTime();
    if (counts.getAndIncrement(index) == 0) {
      deliveredAt.set(index, now);
    }
  }

  /** {@link System#nanoTime()} when message {@code index} was committed; 0 if not noted. */
  long committedAt(int index) {
    return committedAt.get(index);
  }

  /** {@link System#nanoTime()} of message {@code index}'s first delivery; 0 if none. */
  long deliveredAt(int index) {
    return deliveredAt.get(index);
  }

  /** Empty if every message was delivered exactly once, else what went wrong. */
  String problems() {
    int missing = 0;
    int duplicated = 0;
    for (int i = 0; i < n; i++) {
      int c = counts.get(i);
      if (c == 0) {
        missing++;
      } else if (c > 1) {
        duplicated++;
      }
    }
    if (missing == 0 && duplicated == 0 && unknown.get(0) == 0) {
      return "";
    }
    return missing
        + " of "
        + n
        + " never delivered, "
        + duplicated
        + " delivered more than once, "
        + unknown.get(0)
        + " unknown";
  }

  /** Commit-to-delivery latencies in nanoseconds, sorted (a delivery seen first counts as 0). */
  long[] latencies() {
    long[] out = new long[n];
    int k = 0;
    for (int i = 0; i < n; i++) {
      long committed = committedAt.get(i);
      long delivered = deliveredAt.get(i);
      if (committed != 0 && delivered != 0) {
        out[k++] = Math.max(0, delivered - committed);
      }
    }
    long[] sorted = Arrays.copyOf(out, k);
    Arrays.sort(sorted);
    return sorted;
  }
}

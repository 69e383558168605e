package dev.postbox.bench;

import java.util.Arrays;
import java.util.List;

/**
 * The per-window figures of one {@link HeldHorizon} run and its summary line, computed from the
 * commit and delivery times {@link Deliveries} noted: msg/s committed and delivered in each window,
 * and the commit→delivery percentiles of the messages committed in it.
 */
final class HorizonTable {
  /** The Markdown table and the one-line summary under it. */
  record Result(String table, String summary) {}

  private final boolean pg;
  private final Deliveries d;
  private final int total;
  private final long start;
  private final long window;
  private final long holdFrom;
  private final long holdUntil;

  private HorizonTable(
      boolean pg, Deliveries d, int total, long start, long window, long holdFrom, long holdUntil) {
    this.pg = pg;
    this.d = d;
    this.total = total;
    this.start = start;
    this.window = window;
    this.holdFrom = holdFrom;
    this.holdUntil = holdUntil;
  }

  /**
   * The figures of messages {@code 0 … total-1}, windows of {@code window} ns from {@code start}
   * ({@link System#nanoTime()}), {@code phases} ns before, during and after the open transaction.
   */
  static HorizonTable of(
      boolean pg, Deliveries d, int total, long start, long window, long[] phases) {
    return new HorizonTable(pg, d, total, start, window, phases[0], phases[0] + phases[1]);
  }

  /** One row per sampled window, and the summary against the offered {@code rate}. */
  Result render(List<HeldHorizon.Sample> samples, int rate) {
    MarkdownTable t =
        new MarkdownTable(
            "s",
            "phase",
            "committed / delivered msg/s",
            "p50 ms",
            "p99 ms",
            pg ? "dead tuples" : "history length",
            pg ? "candidate scan buffers / ms" : "candidate query ms",
            "pages / msg");
    double perSecond = 1e9 / window;
    double maxP99 = 0;
    long maxAt = 0;
    double[] p99s = new double[samples.size()];
    for (int k = 0; k < samples.size(); k++) {
      long from = k * window;
      long[] latencies = latencies(start + from, start + from + window);
      p99s[k] = Stats.percentile(latencies, 99);
      if (p99s[k] > maxP99) {
        maxP99 = p99s[k];
        maxAt = from + window;
      }
      HeldHorizon.Sample s = samples.get(k);
      t.row(
          Long.toString((from + window) / 1_000_000_000L),
          from < holdFrom ? "before" : from < holdUntil ? "**held**" : "after",
          Stats.rate(latencies.length * perSecond)
              + " / "
              + Stats.rate(delivered(start + from, start + from + window) * perSecond),
          Stats.millis(Stats.percentile(latencies, 50)),
          Stats.millis(p99s[k]),
          String.format("%,d", s.backlog()),
          s.scan(),
          Stats.decimal(s.pagesPerMessage(), 1));
    }
    long beforeFrom = holdFrom > window ? window : 0;
    double p99Before = Stats.percentile(latencies(start + beforeFrom, start + holdFrom), 99);
    long[] held = latencies(start + holdFrom, start + holdUntil);
    int firstAfter = (int) Math.ceil(holdUntil / (double) window);
    int back = p99s.length;
    while (back > firstAfter && p99s[back - 1] <= 1.5 * p99Before) {
      back--;
    }
    String recovery =
        back == p99s.length
            ? "not within " + (p99s.length * window - holdUntil) / 1_000_000_000L + " s"
            : "within " + ((back + 1) * window - holdUntil) / 1_000_000_000L + " s";
    String summary =
        String.format(
            "p99 before %s ms; held: p50 %s ms, p99 %s ms, delivered %s msg/s of %d offered; max"
                + " window p99 %s ms (at %d s); back to ≤ 1.5× the p99 before %s of the commit.",
            Stats.millis(p99Before),
            Stats.millis(Stats.percentile(held, 50)),
            Stats.millis(Stats.percentile(held, 99)),
            Stats.rate(
                delivered(start + holdFrom, start + holdUntil) / ((holdUntil - holdFrom) / 1e9)),
            rate,
            Stats.millis(maxP99),
            maxAt / 1_000_000_000L,
            recovery);
    return new Result(t.toString(), summary);
  }

  /** Commit→delivery latencies of the messages committed in [from, until), sorted. */
  private long[] latencies(long from, long until) {
    long[] out = new long[total];
    int n = 0;
    for (int i = 0; i < total; i++) {
      long committed = d.committedAt(i);
      long delivered = d.deliveredAt(i);
      if (committed >= from && committed < until && delivered != 0) {
        out[n++] = Math.max(0, delivered - committed);
      }
    }
    long[] sorted = Arrays.copyOf(out, n);
    Arrays.sort(sorted);
    return sorted;
  }

  /** Messages first delivered in [from, until). */
  private long delivered(long from, long until) {
    long n = 0;
    for (int i = 0; i < total; i++) {
      long at = d.deliveredAt(i);
      if (at >= from && at < until) {
        n++;
      }
    }
    return n;
  }
}

package dev.postbox.bench;

import java.util.List;
import java.util.Locale;

/** Medians, percentiles and number formatting for the tables. */
final class Stats {
  private Stats() {}

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  /** The nearest-rank percentile {@code p} (0-100) of sorted {@code values}; NaN if empty. */
  static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** A rate as an integer with thousands separators: 12,345. */
  static String rate(double perSecond) {
    return Double.isNaN(perSecond) ? "–" : String.format(Locale.ROOT, "%,.0f", perSecond);
  }

  /** A ratio with two decimals and a multiplication sign: 0.93×. */
  static String ratio(double ratio) {
    return Double.isNaN(ratio) ? "–" : String.format(Locale.ROOT, "%.2f×", ratio);
  }

  /** Milliseconds with two decimals. */
  static String millis(double nanos) {
    return Double.isNaN(nanos) ? "–" : String.format(Locale.ROOT, "%.2f", nanos / 1e6);
  }

  static String decimal(double value, int places) {
    return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%." + places + "f", value);
  }

  /** "yes" or "**no**" for a target check; "–" when there is nothing to compare. */
  static String met(double value, double limit, boolean atLeast) {
    if (Double.isNaN(value)) {
      return "–";
    }
    return (atLeast ? value >= limit : value <= limit) ? "yes" : "**no**";
  }
}

package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** How a claim's rows are grouped into deliveries, each of which takes one slot. Stateless. */
final class DeliveryUnits {
  private DeliveryUnits() {}

  /** {@code rows} in id order if some have a key (the order of their keys), else as claimed. */
  static <T> List<Claimed<T>> sortedByKey(List<Claimed<T>> rows) {
    for (Claimed<T> row : rows) {
      if (row.key() != null) {
        List<Claimed<T>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(Claimed::id));
        return sorted;
      }
    }
    return rows;
  }

  /**
   * How {@code rows} are delivered: all in one delivery for a batch transport ({@code batch}), in
   * id order (so the rows of a key are in their order); else the rows of one key as one run on one
   * thread, in order, and every row without a key on its own.
   */
  static <T> List<List<Claimed<T>>> of(List<Claimed<T>> rows, boolean batch) {
    if (batch) {
      List<Claimed<T>> all = new ArrayList<>(rows);
      all.sort(Comparator.comparingLong(Claimed::id));
      return List.of(all);
    }
    List<List<Claimed<T>>> units = new ArrayList<>(rows.size());
    Map<String, List<Claimed<T>>> runs = null;
    for (Claimed<T> row : rows) { // in id order where there are keys
      if (row.key() == null) {
        units.add(List.of(row));
        continue;
      }
      runs = runs == null ? new HashMap<>() : runs;
      List<Claimed<T>> run = runs.get(row.key());
      if (run == null) {
        run = new ArrayList<>();
        runs.put(row.key(), run);
        units.add(run);
      }
      run.add(row);
    }
    return units;
  }
}

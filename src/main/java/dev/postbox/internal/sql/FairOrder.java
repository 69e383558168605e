package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fair order of the jobs that wait for admission ({@link Admission}), as an enqueue assigns it:
 * each job's {@code fair_tag} is one past the last waiting job of its group and name, or the front
 * of the order if none of them waits. A group that enqueues 100,000 jobs gets places far behind the
 * front, and a group that enqueues one later gets a place at the front: admissions, which take the
 * waiting jobs in this order, serve the groups round-robin. Start-time fair queuing with one place
 * per job. Concurrent enqueues may take the same places, which only ties them. Immutable and
 * thread-safe; runs on the caller's connection and never commits.
 */
public final class FairOrder {
  private final String front;
  private final String tail;
  private final String tailUngrouped;

  /** The fair order of the job table {@code table}. */
  public FairOrder(String table) {
    this.front = Home.common(Sql.ADMISSION_FRONT).replace("{table}", table);
    this.tail = Home.common(Sql.ADMISSION_TAIL).replace("{table}", table);
    this.tailUngrouped = Home.common(Sql.ADMISSION_TAIL_UNGROUPED).replace("{table}", table);
  }

  /** The statements it runs, by name (the rendered catalogue lists them). */
  public Map<String, String> statements() {
    return Map.of("fair-order-tail", tail, "fair-order-tail-ungrouped", tailUngrouped);
  }

  /**
   * The places of jobs that wait for admission, named {@code names[i]} in {@code groups[i]} (null
   * for none), in the order given.
   */
  public long[] places(Connection c, List<String> names, List<String> groups) throws SQLException {
    long[] places = new long[names.size()];
    Long first = null;
    Map<List<String>, Long> next = new HashMap<>();
    for (int i = 0; i < places.length; i++) {
      List<String> chain = Arrays.asList(groups.get(i), names.get(i));
      Long place = next.get(chain);
      if (place == null) {
        if (first == null) {
          first = longOrNull(c, front, null, null);
          first = first == null ? 0 : first;
        }
        Long last =
            longOrNull(c, groups.get(i) == null ? tailUngrouped : tail, chain.get(0), chain.get(1));
        place = last == null ? first : Math.max(first, last + 1);
      }
      places[i] = place;
      next.put(chain, place + 1);
    }
    return places;
  }

  private static Long longOrNull(Connection c, String sql, String group, String name)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int p = 1;
      if (group != null) {
        ps.setString(p++, group);
      }
      if (name != null) {
        ps.setString(p, name);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long value = rs.getLong(1);
        return rs.wasNull() ? null : value;
      }
    }
  }
}

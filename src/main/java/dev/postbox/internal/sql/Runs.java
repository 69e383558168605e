package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The runs a claim adds behind the heads it took, on a table ordered by key, where the database
 * needs a second step for them (all but PostgreSQL, see the catalogue's {@code claim-runs}): the
 * next pending rows of each keyed head's key, oldest first, up to the first that is not due. Each
 * head gets an equal share of the batch, so that one long key does not crowd out the others, and
 * the runs are cut to the batch with the first rows behind every head before the second ones; a
 * claim of many heads with room for only a few rows behind each reads none ({@link #MIN_SHARE}).
 *
 * <p>Only the claim holding a head's lock takes its runs: no other claim can take a row whose key
 * has an older pending row ({@link KeyOrder#headFilter}).
 */
final class Runs {
  /**
   * The fewest rows a run may add behind each head for a claim of more than {@link #FEW_HEADS}
   * heads to read runs at all. The runs are read one branch per head: on MariaDB about 0.1 ms a
   * branch on an idle server, against about 0.02 ms a row for a whole claim, so a branch that adds
   * one row costs more than the claim it saves (1,000 keys, 30,000 rows: 53 ms a read of the runs
   * under load; ordered drain 0.46-0.73x the unordered one with runs of 1, 0.67-0.92x without).
   */
  static final int MIN_SHARE = 4;

  /** Up to this many heads get their runs however short (a small batch over a few keys). */
  static final int FEW_HEADS = 16;

  private Runs() {}

  /**
   * The ids of the runs behind {@code heads} (rows just claimed, in claim order) that fit in {@code
   * limit} rows with the heads, one list per keyed head, oldest first; read without locks.
   */
  static <T> List<List<Long>> plan(QueueSql sql, Connection c, List<Claimed<T>> heads, int limit)
      throws SQLException {
    int share = (limit - 1) / Math.max(1, heads.size());
    List<Claimed<T>> keyed = new ArrayList<>();
    for (Claimed<T> head : heads) {
      if (head.key() != null) {
        keyed.add(head);
      }
    }
    if (keyed.isEmpty() || share < (keyed.size() <= FEW_HEADS ? 1 : MIN_SHARE)) {
      return List.of();
    }
    // per key: id, negated if the row is not due
    Map<String, List<Long>> byKey = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql.followers(keyed.size()))) {
      int p = 1;
      for (Claimed<T> head : keyed) {
        ps.setString(p++, head.key());
        ps.setLong(p++, head.id());
        ps.setInt(p++, share);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String key = rs.getString("run_key");
          long id = rs.getLong("id");
          boolean ready = rs.getInt("ready") == 1;
          byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(ready ? id : -id);
        }
      }
    }
    List<List<Long>> runs = new ArrayList<>(keyed.size());
    for (Claimed<T> head : keyed) {
      List<Long> rows = byKey.getOrDefault(head.key(), new ArrayList<>());
      rows.sort((a, b) -> Long.compare(Math.abs(a), Math.abs(b)));
      List<Long> run = new ArrayList<>(rows.size());
      for (long id : rows) {
        if (id < 0) { // a row not due ends the run: nothing behind it may overtake it
          break;
        }
        run.add(id);
      }
      runs.add(run);
    }
    return cut(runs, limit - heads.size());
  }

  /** {@code runs} cut to {@code room} rows: first rows of every run, then second ones, .... */
  static List<List<Long>> cut(List<List<Long>> runs, int room) {
    List<List<Long>> cut = new ArrayList<>(runs.size());
    runs.forEach(r -> cut.add(new ArrayList<>()));
    for (int pos = 0; room > 0; pos++) {
      boolean any = false;
      for (int i = 0; i < runs.size() && room > 0; i++) {
        if (pos < runs.get(i).size()) {
          cut.get(i).add(runs.get(i).get(pos));
          room--;
          any = true;
        }
      }
      if (!any) {
        break;
      }
    }
    return cut;
  }

  /** All ids of {@code runs}. */
  static List<Long> ids(List<List<Long>> runs) {
    List<Long> ids = new ArrayList<>();
    runs.forEach(ids::addAll);
    return ids;
  }

  /**
   * The rows of {@code locked} that keep each run unbroken: a run ends before its first row that
   * could not be locked still pending and due (another instance's, or finished meanwhile).
   */
  static <T> List<Claimed<T>> unbroken(List<List<Long>> runs, List<Claimed<T>> locked) {
    Map<Long, Claimed<T>> byId = new HashMap<>();
    locked.forEach(row -> byId.put(row.id(), row));
    List<Claimed<T>> kept = new ArrayList<>(locked.size());
    Set<Long> seen = new HashSet<>();
    for (List<Long> run : runs) {
      for (long id : run) {
        Claimed<T> row = byId.get(id);
        if (row == null || !seen.add(id)) {
          break;
        }
        kept.add(row);
      }
    }
    return kept;
  }
}

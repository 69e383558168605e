package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Where a claim finds the heads its window of due rows does not show: on a table ordered by key, a
 * claim searches for heads among the first due rows only (its window), so that rows waiting behind
 * busy heads cost it nothing. When the window is full of such rows and the claim came back short,
 * heads may wait beyond it, which a window alone would leave waiting until every row before them is
 * delivered (forever, behind a parked head). The walk visits the keys in key order from where its
 * previous walk stopped, wrapping round at the last key, and offers each key's oldest pending row
 * to the next claim, which checks it is due and the head of its key under its lock.
 *
 * <p>One per claim strategy, used by its lane's claim loop only: not thread-safe.
 */
final class KeyWalk {
  // messages without a key are not in the walk: they are looked for past the window this often
  // (an unbounded search, as cheap as the window only when such messages wait)
  private static final long UNKEYED_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final QueueSql sql;
  private long unkeyedAt = System.nanoTime() - UNKEYED_EVERY_NANOS;
  private String after; // the key the last walk stopped at; null: start from the first key

  KeyWalk(QueueSql sql) {
    this.sql = sql;
  }

  /**
   * Whether a claim that searched a window of {@code windowRows} due rows and took {@code claimed}
   * of at most {@code limit} rows should walk: the window was full and the claim short.
   */
  boolean wanted(int windowRows, int claimed, int limit) {
    return (sql.walkKeys != null || sql.walkKeyStep != null)
        && windowRows >= sql.window
        && claimed < limit;
  }

  /**
   * The oldest pending row of each of up to {@code keys} keys after the last walk's, wrapping round
   * to the first key once, if it is due; read on {@code c} without locks.
   */
  List<Long> next(Connection c, int keys) throws SQLException {
    String start = after;
    List<Head> heads = read(c, start, keys);
    if (heads.size() == keys) {
      after = heads.getLast().key();
    } else if (start == null) {
      after = null; // every key visited
    } else { // the last key was reached: go on from the first
      // (keys are not compared here: Java's order of strings is not the database's collation; a
      // key visited twice only offers its head twice)
      int wanted = keys - heads.size();
      List<Head> more = read(c, null, wanted);
      heads.addAll(more);
      after = more.size() == wanted ? more.getLast().key() : null;
    }
    Set<Long> ids = new LinkedHashSet<>(heads.size());
    if (System.nanoTime() - unkeyedAt >= UNKEYED_EVERY_NANOS) {
      unkeyedAt = System.nanoTime();
      ids.addAll(unkeyed(c, keys));
    }
    for (Head head : heads) {
      if (head.due()) { // a key whose oldest row is leased or waits for a retry is busy
        ids.add(head.id());
      }
    }
    return new ArrayList<>(ids);
  }

  private record Head(String key, long id, boolean due) {}

  /** Up to {@code n} due rows without a key, oldest due first. */
  private List<Long> unkeyed(Connection c, int n) throws SQLException {
    List<Long> ids = new ArrayList<>(n);
    try (PreparedStatement ps = c.prepareStatement(sql.unkeyedDue)) {
      ps.setInt(1, n);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
    }
    return ids;
  }

  private List<Head> read(Connection c, String from, int keys) throws SQLException {
    List<Head> heads = new ArrayList<>(keys);
    if (sql.walkKeys == null) { // one statement per key
      String after = from;
      while (heads.size() < keys) {
        Head next = step(c, after);
        if (next == null) {
          break;
        }
        heads.add(next);
        after = next.key();
      }
      return heads;
    }
    try (PreparedStatement ps =
        c.prepareStatement(from == null ? sql.walkKeysFromStart : sql.walkKeys)) {
      int p = 1;
      if (from != null) {
        ps.setString(p++, from);
      }
      ps.setInt(p, keys);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          heads.add(head(rs));
        }
      }
    }
    return heads;
  }

  private Head step(Connection c, String from) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(from == null ? sql.walkKeyStepFromStart : sql.walkKeyStep)) {
      if (from != null) {
        ps.setString(1, from);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? head(rs) : null;
      }
    }
  }

  private static Head head(ResultSet rs) throws SQLException {
    return new Head(rs.getString(1), rs.getLong(2), rs.getInt(3) == 1);
  }
}

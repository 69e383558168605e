package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Where a claim finds the heads its window of due rows does not show: on a table ordered by key, a
 * claim searches for heads among the first due rows only (its window), so that rows waiting behind
 * busy heads cost it nothing. When the window is full of such rows and the claim came back short,
 * heads may wait beyond it, which a window alone would leave waiting until every row before them is
 * delivered (forever, behind a parked head). The walk visits the keys in key order from where its
 * previous walk stopped, wrapping round at the last key, and offers each key's oldest pending row
 * that is due and, where parked rows block their keys, has no parked row before it; the claim
 * checks again under its lock that it is due and the head of its key.
 *
 * <p>{@link #everyHead} visits every key instead, for a claim that must know whether anything is
 * claimable at all (one that may prove its lane idle).
 *
 * <p>One per claim strategy, used by its lane's claim loop only: not thread-safe.
 */
final class KeyWalk {
  // messages without a key are not in the walk: they are looked for past the window this often
  // (an unbounded search, as cheap as the window only when such messages wait)
  private static final long UNKEYED_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
  // keys read per statement when every key is visited
  private static final int PAGE = 500;

  private final QueueSql sql;
  private final LongSupplier nanoTime;
  private long unkeyedAt;
  private String after; // the key the last walk stopped at; null: start from the first key

  KeyWalk(QueueSql sql) {
    this(sql, System::nanoTime);
  }

  /** A walk that looks for unkeyed rows by the clock {@code nanoTime} (tests pass their own). */
  KeyWalk(QueueSql sql, LongSupplier nanoTime) {
    this.sql = sql;
    this.nanoTime = nanoTime;
    this.unkeyedAt = nanoTime.getAsLong() - UNKEYED_EVERY_NANOS;
  }

  /** What a walk offers a claim: candidate ids, and whether they are every claimable one. */
  record Found(List<Long> ids, boolean everyHead) {}

  /**
   * Whether a claim that searched a window of {@code windowRows} due rows and took {@code claimed}
   * of at most {@code limit} rows should walk: the window was full and the claim short.
   */
  boolean wanted(int windowRows, int claimed, int limit) {
    return (sql.text(Sql.WALK_KEYS) != null || sql.text(Sql.WALK_KEY_STEP) != null)
        && windowRows >= sql.window
        && claimed < limit;
  }

  /** Whether a claim that searched a window of {@code windowRows} due rows saw every due row. */
  boolean windowHeldAll(int windowRows) {
    return windowRows < sql.window;
  }

  /**
   * The heads of up to {@code keys} keys after the last walk's, wrapping round to the first key
   * once, and now and then ({@link #UNKEYED_EVERY_NANOS}) up to {@code keys} due rows without a
   * key; read on {@code c} without locks.
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
    if (nanoTime.getAsLong() - unkeyedAt >= UNKEYED_EVERY_NANOS) {
      unkeyedAt = nanoTime.getAsLong();
      ids.addAll(unkeyed(c, keys));
    }
    ids.addAll(due(c, heads));
    return new ArrayList<>(ids);
  }

  /**
   * Every key's head, from the first key to the last, and the due rows without a key, up to {@code
   * room} of each; {@link Found#everyHead} if there were fewer than that of both, so that a claim
   * of them which takes none proves that nothing is claimable. Read on {@code c} without locks.
   */
  Found everyHead(Connection c, int room) throws SQLException {
    List<Long> unkeyed = unkeyed(c, room);
    unkeyedAt = nanoTime.getAsLong();
    List<Long> heads = new ArrayList<>();
    String from = null;
    boolean lastKey = false;
    while (!lastKey && heads.size() < room) {
      List<Head> page = read(c, from, PAGE);
      lastKey = page.size() < PAGE;
      if (!page.isEmpty()) {
        from = page.getLast().key();
        heads.addAll(due(c, page));
      }
    }
    Set<Long> ids = new LinkedHashSet<>(unkeyed);
    ids.addAll(heads.size() > room ? heads.subList(0, room) : heads);
    return new Found(new ArrayList<>(ids), lastKey && heads.size() < room && unkeyed.size() < room);
  }

  private record Head(String key, long id, boolean due) {}

  /**
   * The ids of {@code heads} that are due, and, where parked rows block their keys, have no parked
   * row of their key before them: a key whose oldest pending row is leased, waits for a retry or
   * waits behind a parked row has nothing to claim.
   */
  private List<Long> due(Connection c, List<Head> heads) throws SQLException {
    List<Head> due = new ArrayList<>(heads.size());
    for (Head head : heads) {
      if (head.due()) {
        due.add(head);
      }
    }
    Map<String, Long> parked = parkedBefore(c, due);
    List<Long> ids = new ArrayList<>(due.size());
    for (Head head : due) {
      Long firstParked = parked.get(head.key());
      if (firstParked == null || firstParked > head.id()) {
        ids.add(head.id());
      }
    }
    return ids;
  }

  /** For the keys of {@code heads} that have parked rows blocking them: the oldest one's id. */
  private Map<String, Long> parkedBefore(Connection c, List<Head> heads) throws SQLException {
    Map<String, Long> parked = new HashMap<>();
    if (sql.text(Sql.PARKED_OF_KEYS) == null || heads.isEmpty()) {
      return parked;
    }
    try (PreparedStatement ps = c.prepareStatement(sql.withIds(Sql.PARKED_OF_KEYS, heads.size()))) {
      int p = 1;
      for (Head head : heads) {
        ps.setString(p++, head.key());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          parked.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return parked;
  }

  /** Up to {@code n} due rows without a key, oldest due first. */
  private List<Long> unkeyed(Connection c, int n) throws SQLException {
    List<Long> ids = new ArrayList<>(n);
    try (PreparedStatement ps = c.prepareStatement(sql.text(Sql.UNKEYED_DUE))) {
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
    if (sql.text(Sql.WALK_KEYS) == null) { // one statement per key
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
        c.prepareStatement(from == null ? sql.walkKeysFromStart() : sql.text(Sql.WALK_KEYS))) {
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
        c.prepareStatement(
            from == null ? sql.text(Sql.WALK_KEY_STEP_FROM_START) : sql.text(Sql.WALK_KEY_STEP))) {
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

package dev.postbox.reliability;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ordering checker of the reliability scenarios. Commit order comes from the producers (a
 * message whose commit call returned before another's started committed first; overlapping commits
 * are not compared), send order from the recorded deliveries ({@code rel_deliveries.id}: a delivery
 * is recorded by the transport before it returns, so of two sends of one key that follow each other
 * the later gets the higher id). An <em>inversion</em> is a message sent for the first time before
 * a message of its key that committed earlier was sent successfully at least once (or, if that one
 * is poison, before its last attempt: it is parked then). Re-sends never count.
 */
final class KeyOrderLedger {
  private KeyOrderLedger() {}

  /** One message's figures: commit interval, first attempt, and when it stopped holding its key. */
  record Row(long commitStart, long commitEnd, long firstTry, long settled) {}

  /** Counts the inversions among the committed outbox messages of {@code producers}. */
  static long inversions(RelDb db, Producer... producers) {
    Map<String, long[]> tries = tries(db); // event id -> {first try, first ok, last try}
    Set<String> poison = new HashSet<>();
    for (Object[] r : db.rows("SELECT event_id FROM rel_ledger WHERE poison = 1")) {
      poison.add((String) r[0]);
    }
    Map<String, List<Row>> byKey = new HashMap<>();
    for (Producer producer : producers) {
      for (Map.Entry<String, Producer.Commit> e : producer.commits.entrySet()) {
        long[] t = tries.get(e.getKey());
        long firstTry = t == null ? Long.MAX_VALUE : t[0];
        long settled;
        if (t != null && t[1] != Long.MAX_VALUE) {
          settled = t[1];
        } else if (t != null && poison.contains(e.getKey())) {
          settled = t[2];
        } else {
          settled = Long.MAX_VALUE; // never sent: it holds its key for good
        }
        Producer.Commit c = e.getValue();
        byKey
            .computeIfAbsent(c.key(), k -> new ArrayList<>())
            .add(new Row(c.startNanos(), c.endNanos(), firstTry, settled));
      }
    }
    long inversions = 0;
    for (List<Row> rows : byKey.values()) {
      inversions += inversions(rows);
    }
    return inversions;
  }

  /**
   * For each message B, the latest "settled" among the messages that surely committed before B
   * (commit returned before B's commit started) must precede B's first attempt.
   */
  static long inversions(List<Row> rows) {
    List<Row> byEnd = new ArrayList<>(rows);
    byEnd.sort(Comparator.comparingLong(Row::commitEnd));
    List<Row> byStart = new ArrayList<>(rows);
    byStart.sort(Comparator.comparingLong(Row::commitStart));
    long inversions = 0;
    long latestSettled = Long.MIN_VALUE;
    int a = 0;
    for (Row b : byStart) {
      while (a < byEnd.size() && byEnd.get(a).commitEnd() < b.commitStart()) {
        latestSettled = Math.max(latestSettled, byEnd.get(a).settled());
        a++;
      }
      if (b.firstTry() != Long.MAX_VALUE && latestSettled > b.firstTry()) {
        inversions++;
      }
    }
    return inversions;
  }

  private static Map<String, long[]> tries(RelDb db) {
    Map<String, long[]> out = new HashMap<>();
    try (Connection c = db.ds().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT event_id, id, ok FROM rel_deliveries ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long id = rs.getLong(2);
        boolean ok = rs.getInt(3) == 1;
        long[] t =
            out.computeIfAbsent(
                rs.getString(1), k -> new long[] {id, Long.MAX_VALUE, Long.MIN_VALUE});
        if (ok && t[1] == Long.MAX_VALUE) {
          t[1] = id;
        }
        t[2] = id;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }
}

package dev.postbox.internal;

import dev.postbox.internal.dialect.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The lock an add takes on each key it writes, held until the caller's transaction ends, so that
 * the rows of one key get their ids in the order their transactions commit: a producer of a key
 * waits for the one before it, and a claim that sees a row of a key sees every older row of it.
 * Keys are locked in one order (sorted), so two adds of the same keys cannot deadlock each other.
 *
 * <ul>
 *   <li>PostgreSQL: {@code pg_advisory_xact_lock} on a 64-bit hash of table and key; no table. Two
 *       keys with the same hash only wait for each other.
 *   <li>MySQL, MariaDB, H2: the key's row in {@code <table>_keys}, inserted or updated (a row lock
 *       until commit).
 *   <li>SQLite: nothing: one writer at a time holds the database until it commits.
 * </ul>
 *
 * Immutable and thread-safe; runs on the caller's connection, never commits.
 */
final class KeyLocks {
  private final String keysTable;
  private final long seed;

  KeyLocks(String table) {
    this.keysTable = keysTable(table);
    // the same for every instance that names the table with or without its schema
    String bare = table.substring(table.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    this.seed = bare.hashCode();
  }

  /** The keys table next to {@code table} on databases that need one. */
  static String keysTable(String table) {
    return table + "_keys";
  }

  /** The distinct keys of {@code keys}, nulls left out, in the order they are locked. */
  static List<String> sorted(List<String> keys) {
    TreeSet<String> sorted = new TreeSet<>();
    for (String key : keys) {
      if (key != null) {
        sorted.add(key);
      }
    }
    return List.copyOf(sorted);
  }

  /**
   * PostgreSQL: a {@code WITH postbox$locks AS (…)} that locks {@code n} keys bound as its first
   * parameters, for an INSERT that reads it before it makes its rows ({@link
   * IdempotentInsert#insertLocked}): the lock and the add in one round trip.
   */
  String postgresLocks(int n) {
    return "WITH postbox$locks AS MATERIALIZED (SELECT pg_advisory_xact_lock(h) FROM (SELECT"
        + " DISTINCT hashtextextended(k, "
        + seed
        + ") AS h FROM (VALUES "
        + tuples(n, "(CAST(? AS TEXT))")
        + ") AS postbox$keys(k)) AS postbox$hashes ORDER BY h)";
  }

  /** Locks {@code sorted} keys ({@link #sorted}) until the transaction on {@code c} ends. */
  void lock(Connection c, Dialect d, List<String> sorted) throws SQLException {
    if (sorted.isEmpty()) {
      return;
    }
    String sql =
        switch (d.database()) {
          case POSTGRESQL ->
              sorted.size() == 1
                  ? "SELECT pg_advisory_xact_lock(hashtextextended(CAST(? AS TEXT), " + seed + "))"
                  // the locks are taken after the sort: PostgreSQL computes volatile functions
                  // of the select list after ORDER BY
                  : "SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(k, "
                      + seed
                      + ") AS h FROM (VALUES "
                      + tuples(sorted.size(), "(CAST(? AS TEXT))")
                      + ") AS postbox_keys(k)) AS postbox_hashes ORDER BY h";
          case MYSQL ->
              "INSERT INTO "
                  + keysTable
                  + " (msg_key) VALUES "
                  + tuples(sorted.size(), "(?)")
                  + " ON DUPLICATE KEY UPDATE msg_key = msg_key";
          case H2 ->
              "MERGE INTO "
                  + keysTable
                  + " (msg_key) KEY (msg_key) VALUES "
                  + tuples(sorted.size(), "(?)");
          case SQLITE -> null;
        };
    if (sql == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int p = 1;
      for (String key : sorted) {
        ps.setString(p++, key);
      }
      ps.execute();
    }
  }

  private static String tuples(int n, String tuple) {
    StringBuilder s = new StringBuilder(n * (tuple.length() + 2));
    for (int i = 0; i < n; i++) {
      s.append(i == 0 ? "" : ", ").append(tuple);
    }
    return s.toString();
  }
}

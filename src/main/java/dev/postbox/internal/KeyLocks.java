package dev.postbox.internal;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.SqlText;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
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
 * Every add takes its locks in one order shared by all transactions, so two adds (each one call)
 * cannot deadlock each other; two transactions that each make several calls can.
 *
 * <ul>
 *   <li>PostgreSQL: {@code pg_advisory_xact_lock} on a 64-bit hash of table and key, in hash order,
 *       after a shared lock on one of the table's {@value #STRIPES} stripes (the one of the
 *       connection's backend). Each lock takes a slot of the server's shared lock table ({@code
 *       max_locks_per_transaction} × connections, for every session), so an add of more than
 *       {@value #MOST_KEYS_ONE_BY_ONE} distinct keys locks every stripe exclusively instead: it
 *       waits for the open transactions that added keys and holds back every keyed add until it
 *       ends. Two keys with the same hash only wait for each other.
 *   <li>MySQL, MariaDB, H2: the key's row in {@code <table>_keys}, inserted or updated (a row lock
 *       until commit), in sorted order, {@value #CHUNK} keys per statement.
 *   <li>SQLite: nothing: one writer at a time holds the database until it commits.
 * </ul>
 *
 * Immutable and thread-safe; runs on the caller's connection, never commits.
 */
final class KeyLocks {
  /** PostgreSQL: an add of more distinct keys than this locks the whole table's stripes. */
  private static final int MOST_KEYS_ONE_BY_ONE = 1_000;

  /** PostgreSQL: how many locks share the table's lock, so adds do not queue on one lock. */
  private static final int STRIPES = 64;

  /** Keys per statement where each key binds a parameter (MySQL, H2). */
  private static final int CHUNK = 1_000;

  private final String keysTable;
  private final int seed;

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

  /** {@code template} with this table's lock placeholders filled in. */
  String fill(String template) {
    return template
        .replace("{seed}", Integer.toString(seed))
        .replace("{stripes}", Integer.toString(STRIPES))
        .replace("{lastStripe}", Integer.toString(STRIPES - 1))
        .replace("{keysTable}", keysTable);
  }

  /**
   * PostgreSQL: the key locks of {@code n} keys bound as one parameter ({@link #bindPostgres}), one
   * key or a text array of them ({@link Sql#KEY_LOCK}, {@link Sql#KEY_LOCKS}), for a statement's
   * {@code {keyLocks}}.
   */
  static String postgresKeyLocks(Dialect d, int n) {
    return Home.text(n == 1 ? Sql.KEY_LOCK : Sql.KEY_LOCKS, d);
  }

  /**
   * Binds {@code sorted} keys as the one parameter of a PostgreSQL lock statement, at {@code p}:
   * the key itself, or a text array of them, so any number of keys binds one parameter (the
   * protocol allows 65,535). Returns the next parameter's index.
   */
  static int bindPostgres(Connection c, PreparedStatement ps, int p, List<String> sorted)
      throws SQLException {
    if (sorted.size() == 1) {
      ps.setString(p, sorted.get(0));
    } else {
      ps.setArray(p, c.createArrayOf("text", sorted.toArray()));
    }
    return p + 1;
  }

  /** Locks {@code sorted} keys ({@link #sorted}) until the transaction on {@code c} ends. */
  void lock(Connection c, Dialect d, List<String> sorted) throws SQLException {
    if (sorted.isEmpty()) {
      return;
    }
    switch (d.database()) {
      case POSTGRESQL -> {
        if (sorted.size() > MOST_KEYS_ONE_BY_ONE) {
          try (PreparedStatement ps = c.prepareStatement(postgresEveryStripe(d))) {
            ps.execute();
          }
          return;
        }
        try (PreparedStatement ps = c.prepareStatement(postgresKeysAlone(d, sorted.size()))) {
          bindPostgres(c, ps, 1, sorted);
          ps.execute();
        }
      }
      case MYSQL, H2 -> {
        // every chunk in the sorted order: one order for every transaction, whatever the size
        for (int from = 0; from < sorted.size(); from += CHUNK) {
          List<String> chunk = sorted.subList(from, Math.min(sorted.size(), from + CHUNK));
          try (PreparedStatement ps = c.prepareStatement(rowLocks(d, chunk.size()))) {
            int p = 1;
            for (String key : chunk) {
              ps.setString(p++, key);
            }
            ps.execute();
          }
        }
      }
      case SQLITE -> {}
    }
  }

  /** PostgreSQL: locks every stripe of the table ({@link Sql#LOCK_EVERY_STRIPE}). No params. */
  String postgresEveryStripe(Dialect d) {
    return fill(Home.text(Sql.LOCK_EVERY_STRIPE, d));
  }

  /**
   * PostgreSQL: locks {@code n} keys in a statement of its own ({@link Sql#LOCK_KEYS}), for an add
   * that does not fit one INSERT. Params: the key, or the keys as a text array.
   */
  String postgresKeysAlone(Dialect d, int n) {
    return fill(Home.text(Sql.LOCK_KEYS, d).replace("{keyLocks}", postgresKeyLocks(d, n)));
  }

  /** MySQL, H2: the statement that locks {@code n} keys' rows of the keys table. */
  String rowLocks(Dialect d, int n) {
    return fill(Home.text(Sql.LOCK_KEYS, d).replace("{tuples}", SqlText.marks(n, "(?)")));
  }
}

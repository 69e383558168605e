package dev.postbox.internal;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.testing.RenderedSql;

/**
 * Renders the statements of this package for {@code RenderedSqlTest}: the inserts of the API
 * classes and the key locks before them ({@link TableWriter}, {@link IdempotentInsert}, {@link
 * KeyLocks}), the checks of a dispatcher's start ({@link Startup}) and PostgreSQL's LISTEN ({@link
 * PostgresNotifications}).
 */
public final class InternalSqlRendering {
  private static final int[] ROWS = {1, 2, 3};

  private InternalSqlRendering() {}

  /**
   * Renders into {@code out} the inserts {@code writer} makes of {@code rows} rows each (and, if it
   * locks keys, its key locks) as {@code name-…}; {@code notifying}: the writer of a table whose
   * adds notify, whose statements are named {@code name-…-notify-…}.
   *
   * @param uniqueGenerated whether rows can come whose unique value cannot collide (generated, or
   *     NULL), which take the plain INSERT; else it is rendered only where the database has no
   *     insert that skips duplicates
   * @param rowParams one row's bound values, in order
   */
  public static void adds(
      RenderedSql.Folder out,
      Dialect d,
      String name,
      TableWriter writer,
      boolean notifying,
      boolean uniqueGenerated,
      String rowParams,
      int... rows) {
    String notify = notifying ? "-notify" : "";
    String perRow = "per row: " + rowParams;
    for (int n : rows) {
      String skipping = writer.insert.statement(d, n, true).sql();
      if (skipping != null) {
        out.add(name + "-insert-skipping" + notify + "-" + n, perRow, skipping);
      }
      if (uniqueGenerated || skipping == null) {
        out.add(
            name + "-insert" + notify + "-" + n,
            perRow,
            writer.insert.statement(d, n, false).sql());
      }
    }
    KeyLocks locks = writer.keyLocks;
    if (locks == null) {
      return;
    }
    if (d.database() == Database.POSTGRESQL) {
      // an add of up to 500 rows locks its keys in its INSERT
      for (int n : ROWS) {
        for (int keys : n == 1 ? new int[] {1} : new int[] {1, n}) {
          for (boolean skip : new boolean[] {false, true}) {
            out.add(
                name
                    + "-insert-locked"
                    + (skip ? "-skipping" : "")
                    + notify
                    + "-"
                    + n
                    + "-rows-"
                    + keys
                    + "-keys",
                keysParam(keys) + ", then " + perRow,
                writer.insert.locked(d, n, skip, keys > 1, locks).sql());
          }
        }
      }
    }
    if (notifying) {
      return; // the key locks of a larger add do not notify
    }
    switch (d.database()) {
      case POSTGRESQL -> {
        for (int keys : new int[] {1, 2}) {
          out.add(name + "-key-locks-" + keys, keysParam(keys), locks.postgresKeysAlone(d, keys));
        }
        out.add(name + "-key-locks-every-stripe", "none", locks.postgresEveryStripe(d));
      }
      case MYSQL, H2 -> {
        for (int keys : ROWS) {
          out.add(
              name + "-key-locks-" + keys,
              "the " + keys + " keys, sorted",
              locks.rowLocks(d, keys));
        }
      }
      case SQLITE -> {}
    }
  }

  private static String keysParam(int keys) {
    return keys == 1 ? "the key" : "the " + keys + " keys as a text array, sorted";
  }

  /** The check of a dispatcher's start that {@code table} has {@code columns}. */
  public static String columnsCheck(String table, String columns) {
    return Startup.columnsCheck(table, columns);
  }

  /** The check that the keys table of the outbox {@code table} ordered by key is there. */
  public static String keysTableCheck(String table) {
    return Startup.columnsCheck(KeyLocks.keysTable(table), Startup.KEYS_TABLE_COLUMNS);
  }

  /** PostgreSQL's LISTEN on the channel of {@code table}. */
  public static String listen(String table) {
    return PostgresNotifications.listen(PostgresNotifications.channel(table));
  }

  /** PostgreSQL's UNLISTEN before the connection goes back to the pool. */
  public static String unlisten() {
    return PostgresNotifications.UNLISTEN;
  }
}

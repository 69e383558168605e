package dev.postbox.internal;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Inserts rows on the caller's connection, skipping rows whose unique column already holds the
 * value, without ever aborting the caller's transaction: the dialect's insert-if-absent form where
 * it has one, else a plain INSERT whose duplicate-key failure (which these databases roll back per
 * statement) is caught and retried row by row. Many rows go in one statement per 500.
 *
 * <p>Rows that cannot collide (their unique value was generated here, or is NULL) take the plain
 * INSERT: on PostgreSQL and SQLite it is cheaper than the insert-if-absent form, and should a
 * generated value ever collide the insert fails loudly instead of skipping a message.
 */
final class IdempotentInsert {
  private static final int CHUNK = 500;
  private static final int CACHED_ROWS = 16;

  private final String table;
  private final String columns;
  private final int[] types;
  private final String uniqueColumn;
  private final String valueTuple;
  private final String notifyChannel;
  // by dialect, form and row count (up to 16, and CHUNK): built once, no key objects per insert
  private final AtomicReferenceArray<Insert> statements =
      new AtomicReferenceArray<>(Database.values().length * 2 * (CACHED_ROWS + 2));

  /** One statement; {@code countAsRow}: it returns the inserted count as a row (insert+notify). */
  record Insert(String sql, boolean countAsRow) {}

  private static final Insert NONE = new Insert(null, false);

  // PostgreSQL's add of one keyed row with its key lock: plain, skipping duplicates (racy caching
  // is harmless: both builders make the same statement)
  private final Insert[] lockedSingle = new Insert[2];

  /** As {@link TableWriter}'s; {@code notifyChannel} null for none. */
  IdempotentInsert(
      String table,
      String columns,
      int[] types,
      String uniqueColumn,
      String valueTuple,
      String notifyChannel) {
    this.table = table;
    this.columns = columns;
    this.types = types.clone();
    this.uniqueColumn = uniqueColumn;
    this.valueTuple = valueTuple;
    this.notifyChannel = notifyChannel;
  }

  /**
   * Inserts {@code rows} (each holding one value per type); returns how many were new. {@code
   * mayCollide}: false if no row's unique value can already be stored (generated here, or NULL).
   */
  int insert(Connection c, Dialect d, List<Object[]> rows, boolean mayCollide) throws SQLException {
    if (rows.size() <= CHUNK) {
      return insertChunk(c, d, rows, mayCollide);
    }
    int inserted = 0;
    for (int from = 0; from < rows.size(); from += CHUNK) {
      inserted +=
          insertChunk(c, d, rows.subList(from, Math.min(rows.size(), from + CHUNK)), mayCollide);
    }
    return inserted;
  }

  /**
   * {@link #insert} of at most {@link #CHUNK} rows in one PostgreSQL statement that first locks
   * {@code keys} (sorted, distinct, at most as many as rows) with {@code keyLocks}, bound first as
   * its one parameter ({@link KeyLocks#bindPostgres}). One round trip for the lock and the insert.
   */
  int insertLocked(
      Connection c,
      Dialect d,
      List<Object[]> rows,
      boolean mayCollide,
      KeyLocks keyLocks,
      List<String> keys)
      throws SQLException {
    boolean cached = rows.size() == 1 && keys.size() == 1;
    Insert insert = cached ? lockedSingle[mayCollide ? 1 : 0] : null;
    if (insert == null) {
      insert = locked(d, rows.size(), mayCollide, keys.size() > 1, keyLocks);
      if (cached) {
        lockedSingle[mayCollide ? 1 : 0] = insert;
      }
    }
    return execute(c, insert, rows, keys);
  }

  static boolean fitsOneStatement(int rows) {
    return rows <= CHUNK;
  }

  /**
   * PostgreSQL's insert of {@code rows} rows that first locks its keys ({@link
   * Sql#INSERT_LOCKING}): one key, or a text array of them if {@code manyKeys}; skipping duplicates
   * if {@code skipping}.
   */
  Insert locked(Dialect d, int rows, boolean skipping, boolean manyKeys, KeyLocks keyLocks) {
    String sql =
        keyLocks.fill(
            Home.text(Sql.INSERT_LOCKING, d)
                .replace("{keyLocks}", KeyLocks.postgresKeyLocks(d, manyKeys ? 2 : 1))
                .replace("{onConflict}", skipping ? Home.text(Sql.ON_CONFLICT, d) : ""));
    return notifying(d, into(sql, d, rows));
  }

  /** {@code template} filled in for this table and {@code rows} rows. */
  private String into(String template, Dialect d, int rows) {
    StringBuilder values = new StringBuilder(rows * (valueTuple.length() + 2));
    for (int i = 0; i < rows; i++) {
      values.append(i == 0 ? "" : ", ").append(valueTuple);
    }
    return template
        .replace("{table}", table)
        .replace("{columns}", columns)
        .replace("{unique}", uniqueColumn)
        .replace("{values}", Home.clock(values.toString(), d));
  }

  /** {@code sql}, notifying the table's channel where the database has notifications. */
  private Insert notifying(Dialect d, String sql) {
    String notify = notifyChannel == null ? null : Home.text(Sql.INSERT_NOTIFY, d);
    return notify == null
        ? new Insert(sql, false)
        : new Insert(notify.replace("{channel}", notifyChannel).replace("{insert}", sql), true);
  }

  private int insertChunk(Connection c, Dialect d, List<Object[]> rows, boolean mayCollide)
      throws SQLException {
    if (!mayCollide) {
      return execute(c, statement(d, rows.size(), false), rows);
    }
    Insert skipping = statement(d, rows.size(), true);
    if (skipping.sql() != null) {
      return execute(c, skipping, rows);
    }
    try {
      return execute(c, statement(d, rows.size(), false), rows);
    } catch (SQLException e) {
      if (!d.isDuplicateKey(e)) {
        throw e;
      }
    }
    if (rows.size() == 1) {
      return 0;
    }
    int inserted = 0;
    Insert single = statement(d, 1, false);
    for (Object[] row : rows) {
      try {
        inserted += execute(c, single, List.<Object[]>of(row));
      } catch (SQLException e) {
        if (!d.isDuplicateKey(e)) {
          throw e;
        }
      }
    }
    return inserted;
  }

  /** The statement for {@code rows} rows; its sql is null if the dialect has no skipping form. */
  Insert statement(Dialect d, int rows, boolean skipping) {
    int slot = rows <= CACHED_ROWS ? rows : rows == CHUNK ? CACHED_ROWS + 1 : -1;
    int index = ((d.database().ordinal() * 2) + (skipping ? 1 : 0)) * (CACHED_ROWS + 2) + slot;
    Insert cached = slot < 0 ? null : statements.get(index);
    if (cached != null) {
      return cached;
    }
    String template = Home.text(skipping ? Sql.INSERT_SKIPPING : Sql.INSERT, d);
    Insert built = template == null ? NONE : notifying(d, into(template, d, rows));
    if (slot >= 0) {
      statements.set(index, built);
    }
    return built;
  }

  private int execute(Connection c, Insert insert, List<Object[]> rows) throws SQLException {
    return execute(c, insert, rows, List.of());
  }

  /**
   * Runs {@code insert}, binding {@code keys} (if any) before the rows' values, as {@link
   * KeyLocks#bindPostgres} does.
   */
  private int execute(Connection c, Insert insert, List<Object[]> rows, List<String> keys)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insert.sql())) {
      int p = keys.isEmpty() ? 1 : KeyLocks.bindPostgres(c, ps, 1, keys);
      for (Object[] row : rows) {
        for (int i = 0; i < types.length; i++) {
          Object value = row[i];
          if (value == null) {
            ps.setNull(p++, types[i]);
          } else if (value instanceof String s) {
            ps.setString(p++, s);
          } else if (value instanceof Integer n) {
            ps.setInt(p++, n);
          } else {
            ps.setLong(p++, (Long) value);
          }
        }
      }
      if (insert.countAsRow()) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getInt(1);
        }
      }
      return ps.executeUpdate();
    }
  }
}

package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * What differs between databases, and nothing else: the clock expression, timestamp reading, the
 * claim's shape and locking, insert-if-absent, bounded delete and error classification.
 */
public interface Dialect {

  Database database();

  /** SQL expression for the database's current time, in the column type of the shipped schema. */
  String now();

  /** SQL expression for the database's current time plus one bound {@code long} of milliseconds. */
  String nowPlusMillis();

  /** Reads a timestamp column written by {@link #now()} or {@link #nowPlusMillis()}. */
  Instant readInstant(ResultSet rs, String column) throws SQLException;

  /**
   * True if one {@code UPDATE … RETURNING …} of the rows a locking subquery selects ({@link
   * #claimReturning}) claims them; false if the claim reads due ids without locks, then locks them
   * by primary key with a SELECT and updates them in one transaction. (A locking SELECT over the
   * due range would do in one step less, but InnoDB also locks the first row past the range, even
   * at READ COMMITTED, and a claimer stalled before its COMMIT would keep the next row to come due
   * from every other claimer.)
   */
  boolean claimsWithUpdateReturning();

  /**
   * The one-statement claim (where {@link #claimsWithUpdateReturning}): on the rows {@code
   * dueSelect} locks (an {@code id} column), sets {@code leased_by} (the first parameter), adds one
   * to {@code attempts} and {@code claims} and sets {@code available_at} to now plus the lease in
   * ms (the second parameter); {@code dueSelect}'s parameters follow. Returns {@code returned}.
   */
  default String claimReturning(String table, String dueSelect, String claimSet, String returned) {
    return "UPDATE "
        + table
        + " SET leased_by = ?, attempts = attempts + 1, claims = claims + 1"
        + claimSet
        + ", available_at = "
        + nowPlusMillis()
        + " WHERE id IN ("
        + dueSelect
        + ") RETURNING "
        + returned;
  }

  /**
   * {@code change} ({@code DELETE FROM table} or {@code UPDATE table SET …}) of the {@code n} rows
   * whose ids are bound, fenced: only rows still leased by this instance with this claim count.
   * Params: leased_by, claims, then the n ids.
   */
  default String changeLeasedRows(String change, boolean update, String table, int n) {
    StringBuilder s = new StringBuilder(change).append(" WHERE leased_by = ? AND claims = ?");
    s.append(" AND id IN (");
    for (int i = 0; i < n; i++) {
      s.append(i == 0 ? "?" : ", ?");
    }
    return s.append(')').toString();
  }

  /**
   * {@link #claimReturning} that first runs {@code finish} (a fenced DELETE or UPDATE of rows
   * delivered since the last claim) in the same statement, so one round trip and one commit do
   * both; null where the claim runs in a transaction that can hold {@code finish} as its own
   * statement. Parameters: the claim's two, then {@code finish}'s. Every row returned has a column
   * {@code finished$rows}, the rows {@code finish} changed; when nothing was claimed it is one row
   * whose {@code id} is NULL.
   */
  default String claimReturningAfter(
      String table, String dueSelect, String claimSet, String returned, String finish) {
    return null;
  }

  /**
   * A statement that removes dead rows and index entries of {@code table} outside any transaction,
   * or null where the database needs none.
   */
  default String vacuum(String table) {
    return null;
  }

  /** True if the database lets one connection write at a time (SQLite). */
  default boolean singleWriter() {
    return false;
  }

  /** Appended to the claim's inner SELECT to skip rows other claimers hold; empty if not needed. */
  String skipLocked();

  /**
   * Appended to a table name so that a lookup by {@code id IN (…)} uses the primary key and locks
   * nothing else, whatever the statistics say; empty if the database needs no hint.
   */
  default String primaryKeyHint() {
    return "";
  }

  /**
   * Statements that open the claim transaction on a connection in auto-commit mode, ended by a
   * plain {@code COMMIT} (SQLite: {@code BEGIN IMMEDIATE}). Empty if the claim needs none (a
   * one-statement claim is atomic on its own) or uses JDBC's {@code setAutoCommit(false)}.
   */
  default List<String> beginClaim() {
    return List.of();
  }

  /**
   * {@code value} as an SQL string literal, where the two-step claim sends its statements as
   * batches of text with their values written in (the driver pipelines such a batch in one round
   * trip); null where the claim binds parameters.
   */
  default String stringLiteral(String value) {
    return null;
  }

  /**
   * An INSERT of {@code rows} value tuples that silently skips rows whose {@code uniqueColumn}
   * already exists, reporting only inserted rows in its update count; null if the database has no
   * such form that is safe (then a plain INSERT is used and duplicates are caught).
   */
  String insertSkippingDuplicates(
      String table, String columns, String valueRows, String uniqueColumn);

  /**
   * A DELETE of at most {@code ?} rows (bound last) of {@code table} matching {@code where}, rows
   * identified by {@code key} (a column, or columns in parentheses).
   */
  default String deleteLimited(String table, String key, String where) {
    return "DELETE FROM "
        + table
        + " WHERE "
        + key
        + " IN (SELECT "
        + key.replaceAll("[()]", "")
        + " FROM "
        + table
        + " WHERE "
        + where
        + " LIMIT ?)";
  }

  /**
   * {@code insert} (a plain INSERT, or an insert-if-absent from {@link #insertSkippingDuplicates})
   * turned into one statement that also notifies {@code channel} and returns the inserted count as
   * its only row; null if the database has no notifications.
   */
  default String insertAndNotify(String insert, String channel) {
    return null;
  }

  /** True if {@code e} reports a unique-key violation. */
  boolean isDuplicateKey(SQLException e);

  /**
   * True if {@code e} is a deadlock, lock timeout, busy or serialization failure worth retrying.
   */
  boolean isTransient(SQLException e);
}

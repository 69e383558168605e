package dev.postbox.internal;

import dev.postbox.Database;
import dev.postbox.PostboxException;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * How the outbox, the job queue and the inbox write on the caller's connection: auto-commit
 * refused, duplicates skipped without aborting the transaction ({@link IdempotentInsert}), keys
 * locked if asked ({@link KeyLocks}). Immutable and thread-safe; never commits, rolls back or
 * closes.
 */
public final class TableWriter {
  private final String table;
  private final boolean allowAutoCommit;
  private final String autoCommitRefusal;
  final IdempotentInsert insert;
  private final DialectChoice dialects;
  private final int keyIndex;
  final KeyLocks keyLocks; // null unless the writer locks keys

  /**
   * @param options the table, whether auto-commit is allowed and whether inserts notify
   * @param columns the inserted columns, comma-separated
   * @param types the {@link java.sql.Types} of one row's bound parameters
   * @param uniqueColumn the column (or columns) a duplicate collides on
   * @param valueTuple one row's "(?, ?, …)", its clock expressions placeholders ({@code {now}},
   *     {@code {nowPlusMillis}})
   * @param autoCommitRefusal why a connection in auto-commit mode is refused, and what to do
   */
  public TableWriter(
      ProducerOptions options,
      String columns,
      int[] types,
      String uniqueColumn,
      String valueTuple,
      String autoCommitRefusal) {
    this.table = options.table();
    this.allowAutoCommit = options.allowAutoCommit();
    this.autoCommitRefusal = autoCommitRefusal;
    this.dialects = new DialectChoice();
    this.keyIndex = -1;
    this.keyLocks = null;
    this.insert =
        new IdempotentInsert(
            table,
            columns,
            types,
            uniqueColumn,
            valueTuple,
            options.notifies() ? PostgresNotifications.channel(table) : null);
  }

  private TableWriter(TableWriter w, int keyIndex) {
    this.table = w.table;
    this.allowAutoCommit = w.allowAutoCommit;
    this.autoCommitRefusal = w.autoCommitRefusal;
    this.dialects = w.dialects;
    this.insert = w.insert;
    this.keyIndex = keyIndex;
    this.keyLocks = new KeyLocks(w.table);
  }

  /**
   * Why a connection in auto-commit mode is refused and what to do: {@code call} must run inside
   * the caller's transaction. Names the usual way to lose that transaction, Spring's
   * self-invocation; not the opt-out, which gives up the very atomicity the refusal protects.
   *
   * @param consequence what auto-commit would break, e.g. "the message would not be atomic with
   *     your business data"
   * @param call the refused method, e.g. "add"
   */
  public static String autoCommitRefusal(String consequence, String call) {
    return "the connection is in auto-commit mode (no transaction), so "
        + consequence
        + " — call "
        + call
        + " inside your transaction, on its connection (auto-commit off; you commit after your own"
        + " writes). With Spring, a @Transactional method called from another method of its own"
        + " class (self-invocation) bypasses the proxy and runs without a transaction: call it"
        + " through the injected bean, or use a TransactionTemplate";
  }

  /**
   * This writer, locking the key of each row (its value number {@code keyIndex}) before it inserts,
   * until the caller's transaction ends ({@link KeyLocks}).
   */
  public TableWriter lockingKeys(int keyIndex) {
    return new TableWriter(this, keyIndex);
  }

  public String table() {
    return table;
  }

  /** The dialect of each caller's connection, detected. */
  public DialectChoice dialects() {
    return dialects;
  }

  /**
   * Inserts {@code rows} on {@code c}, skipping those whose unique value is stored; returns how
   * many were new. {@code mayCollide}: false if no row's unique value can already be stored.
   *
   * @throws PostboxException naming {@code doing}, if {@code c} is in auto-commit mode (unless
   *     allowed) or the INSERT fails
   */
  public int insert(Connection c, List<Object[]> rows, boolean mayCollide, String doing) {
    try {
      Require.notNull("connection", c);
      if (!allowAutoCommit && c.getAutoCommit()) {
        throw new PostboxException(autoCommitRefusal);
      }
      Dialect d = dialects.of(c);
      if (keyLocks != null) {
        List<String> keys = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
          keys.add((String) row[keyIndex]);
        }
        List<String> sorted = KeyLocks.sorted(keys);
        if (!sorted.isEmpty()
            && d.database() == Database.POSTGRESQL
            && IdempotentInsert.fitsOneStatement(rows.size())) {
          return insert.insertLocked(c, d, rows, mayCollide, keyLocks, sorted);
        }
        keyLocks.lock(c, d, sorted);
      }
      return insert.insert(c, d, rows, mayCollide);
    } catch (SQLException e) {
      throw Jdbc.wrap(doing, e);
    }
  }
}

package dev.postbox.internal.sql;

import dev.postbox.internal.dialect.Dialect;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads the table-specific columns of claimed rows into the items a deliverer receives. */
@FunctionalInterface
public interface RowReader<T> {
  /**
   * The reader of the rows of {@code rs}, on its first row: it looks up the positions of the
   * columns it reads once, for every row (by name on every row, the lookups cost a claim as much
   * CPU as reading the values).
   *
   * @param leased true if {@code rs} shows the rows as the claim left them (UPDATE … RETURNING),
   *     false if as they were before the claim's UPDATE (a locking SELECT, then the UPDATE)
   */
  Rows<T> of(ResultSet rs, Dialect dialect, boolean leased) throws SQLException;

  /** Reads the current row of the result set it was made for. */
  @FunctionalInterface
  interface Rows<T> {
    Claimed<T> read(long id, int attempt, int claims) throws SQLException;
  }
}

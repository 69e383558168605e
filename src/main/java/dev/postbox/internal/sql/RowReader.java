package dev.postbox.internal.sql;

import dev.postbox.internal.dialect.Dialect;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads the table-specific columns of a claimed row into the item a deliverer receives. */
@FunctionalInterface
public interface RowReader<T> {
  /**
   * @param leased true if {@code rs} shows the row as the claim left it (UPDATE … RETURNING), false
   *     if as it was before the claim's UPDATE (a locking SELECT, then the UPDATE)
   */
  Claimed<T> read(ResultSet rs, Dialect dialect, long id, int attempt, int claims, boolean leased)
      throws SQLException;
}

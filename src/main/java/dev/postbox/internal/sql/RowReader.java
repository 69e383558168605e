package dev.postbox.internal.sql;

import dev.postbox.internal.dialect.Dialect;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads the table-specific columns of a claimed row into the item a deliverer receives. */
@FunctionalInterface
public interface RowReader<T> {
  Claimed<T> read(ResultSet rs, Dialect dialect, long id, int attempt, int claims)
      throws SQLException;
}

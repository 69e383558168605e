package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.SQLException;

/** PostgreSQL: {@code statement_timestamp()}, ON CONFLICT DO NOTHING, NOTIFY in the INSERT. */
final class PostgresDialect extends TimestampTzDialect {
  PostgresDialect() {
    super(
        Database.POSTGRESQL,
        "statement_timestamp()",
        "(statement_timestamp() + ? * interval '1 millisecond')");
  }

  @Override
  public boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state) || "55P03".equals(state);
  }
}

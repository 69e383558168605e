package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.SQLException;

/** H2 2.2.220+ on MVStore. */
final class H2Dialect extends TimestampTzDialect {
  H2Dialect() {
    super(
        Database.H2,
        "CURRENT_TIMESTAMP(6)",
        "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))");
  }

  @Override
  public boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "HYT00".equals(state);
  }

  /**
   * Also H2's own code for a broken connection, 90067 (CONNECTION_BROKEN_1), which its server mode
   * raises when the socket breaks or the server cannot be reached (it has no class 08 SQLState);
   * embedded, only for a session or database already closed, where nothing more is written.
   */
  @Override
  public boolean connectionBroken(SQLException e) {
    return "90067".equals(e.getSQLState()) || super.connectionBroken(e);
  }
}

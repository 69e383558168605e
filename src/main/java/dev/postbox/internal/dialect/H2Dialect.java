package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** H2 2.2.220+ on MVStore. */
final class H2Dialect implements Dialect {

  @Override
  public Database database() {
    return Database.H2;
  }

  @Override
  public String now() {
    return "CURRENT_TIMESTAMP(6)";
  }

  @Override
  public String nowPlusMillis() {
    return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))";
  }

  @Override
  public Instant readInstant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  @Override
  public void bindInstant(PreparedStatement ps, int i, Instant t) throws SQLException {
    ps.setObject(i, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
  }

  @Override
  public boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
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
    return "90067".equals(e.getSQLState()) || Dialect.super.connectionBroken(e);
  }
}

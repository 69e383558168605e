package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** MySQL 8 / MariaDB 10.6+: DATETIME(6) columns hold UTC from {@code UTC_TIMESTAMP(6)}. */
final class MySqlDialect implements Dialect {

  @Override
  public Database database() {
    return Database.MYSQL;
  }

  @Override
  public String now() {
    return "UTC_TIMESTAMP(6)";
  }

  @Override
  public String nowPlusMillis() {
    return "TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))";
  }

  @Override
  public Instant readInstant(ResultSet rs, int column) throws SQLException {
    LocalDateTime value = rs.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }

  @Override
  public void bindInstant(PreparedStatement ps, int i, Instant t) throws SQLException {
    ps.setObject(i, LocalDateTime.ofInstant(t, ZoneOffset.UTC)); // UTC, as UTC_TIMESTAMP(6) writes
  }

  @Override
  public boolean isDuplicateKey(SQLException e) {
    return e.getErrorCode() == 1062;
  }

  @Override
  public boolean isTransient(SQLException e) {
    int code = e.getErrorCode();
    return code == 1213 || code == 1205 || "40001".equals(e.getSQLState());
  }
}

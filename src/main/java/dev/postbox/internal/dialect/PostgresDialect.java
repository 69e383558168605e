package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** PostgreSQL: {@code statement_timestamp()}, ON CONFLICT DO NOTHING, NOTIFY in the INSERT. */
final class PostgresDialect implements Dialect {

  @Override
  public Database database() {
    return Database.POSTGRESQL;
  }

  @Override
  public String now() {
    return "statement_timestamp()";
  }

  @Override
  public String nowPlusMillis() {
    return "(statement_timestamp() + ? * interval '1 millisecond')";
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
    return "40001".equals(state) || "40P01".equals(state) || "55P03".equals(state);
  }
}

package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * A database whose time columns are {@code TIMESTAMP WITH TIME ZONE} (PostgreSQL, H2): instants are
 * read and bound as {@link OffsetDateTime}, and a duplicate key is the standard SQLSTATE 23505.
 */
abstract class TimestampTzDialect implements Dialect {
  private final Database database;
  private final String now;
  private final String nowPlusMillis;

  /** {@code now}: the clock's SQL; {@code nowPlusMillis}: it plus a bound number of ms. */
  TimestampTzDialect(Database database, String now, String nowPlusMillis) {
    this.database = database;
    this.now = now;
    this.nowPlusMillis = nowPlusMillis;
  }

  @Override
  public Database database() {
    return database;
  }

  @Override
  public String now() {
    return now;
  }

  @Override
  public String nowPlusMillis() {
    return nowPlusMillis;
  }

  @Override
  public Instant readInstant(ResultSet rs, int column) throws SQLException {
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
}

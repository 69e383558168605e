package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * SQLite 3.35+: in this process, one writer per file. Times are INTEGER milliseconds since the
 * epoch.
 */
final class SqliteDialect implements Dialect {
  // to the nearest millisecond: + 0.5 and a truncating CAST is what ROUND(x) computes for x > 0,
  // without the function call that made preparing an add's INSERT (done on every add) ~7% slower;
  // the catalogue fills the same expression into every statement's {now}
  private static final String NOW =
      "CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)";

  @Override
  public Database database() {
    return Database.SQLITE;
  }

  @Override
  public String now() {
    return NOW;
  }

  @Override
  public String nowPlusMillis() {
    return "(" + NOW + " + ?)";
  }

  @Override
  public Instant readInstant(ResultSet rs, int column) throws SQLException {
    long millis = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
  }

  @Override
  public void bindInstant(PreparedStatement ps, int i, Instant t) throws SQLException {
    ps.setLong(i, t.toEpochMilli());
  }

  @Override
  public boolean inProcess() {
    return true;
  }

  @Override
  public boolean oneWriter() {
    return true;
  }

  @Override
  public boolean isDuplicateKey(SQLException e) {
    return e.getErrorCode() == 19 && String.valueOf(e.getMessage()).contains("UNIQUE");
  }

  @Override
  public boolean isTransient(SQLException e) {
    int code =
        e.getErrorCode() & 0xff; // extended result codes keep the primary code in the low byte
    return code == 5 || code == 6; // SQLITE_BUSY, SQLITE_LOCKED
  }
}

package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;

/**
 * MySQL 8 / MariaDB 10.6+: no UPDATE … RETURNING and no LIMIT in an IN subquery, so the claim reads
 * due ids without locks, then locks them by primary key with SELECT … FOR UPDATE SKIP LOCKED and
 * updates them, at READ COMMITTED (no gap locks). DATETIME(6) columns hold UTC from {@code
 * UTC_TIMESTAMP(6)}.
 */
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
  public Instant readInstant(ResultSet rs, String column) throws SQLException {
    LocalDateTime value = rs.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }

  @Override
  public boolean claimsWithUpdateReturning() {
    return false;
  }

  @Override
  public String skipLocked() {
    return " FOR UPDATE SKIP LOCKED";
  }

  @Override
  public String primaryKeyHint() {
    return " FORCE INDEX (PRIMARY)";
  }

  @Override
  public List<String> beginClaim() {
    // READ COMMITTED: no gap locks, so claims neither deadlock with nor block concurrent INSERTs;
    // SET TRANSACTION applies to the next transaction only, so nothing needs restoring afterwards
    return List.of("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "START TRANSACTION");
  }

  @Override
  public String stringLiteral(String value) {
    // hex digits after a character set introducer: read the same under every sql_mode
    // (NO_BACKSLASH_ESCAPES, ANSI_QUOTES), and coercible to the column's collation
    return "_utf8mb4 X'" + HexFormat.of().formatHex(value.getBytes(StandardCharsets.UTF_8)) + "'";
  }

  @Override
  public String insertSkippingDuplicates(
      String table, String columns, String valueRows, String uniqueColumn) {
    // INSERT IGNORE also swallows truncation and bad values, and ON DUPLICATE KEY UPDATE reports a
    // duplicate as 1 row under the drivers' default CLIENT_FOUND_ROWS: a plain INSERT it is, and a
    // duplicate key (which in InnoDB rolls back only the statement) is caught.
    return null;
  }

  @Override
  public String deleteLimited(String table, String key, String where) {
    // MySQL forbids a subquery on the table being deleted from; DELETE … LIMIT is its own form
    return "DELETE FROM " + table + " WHERE " + where + " LIMIT ?";
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

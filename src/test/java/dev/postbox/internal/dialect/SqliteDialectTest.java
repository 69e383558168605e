package dev.postbox.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * SQLite's clock expression rounds to the nearest millisecond with {@code + 0.5} and a truncating
 * CAST instead of {@code ROUND}; the two must agree for every time the clock can return.
 */
class SqliteDialectTest {
  private static final String ROUNDED = "CAST(ROUND((j - 2440587.5) * 86400000.0) AS INTEGER)";

  @Test
  void nowRoundsToTheNearestMillisecondLikeRound() throws Exception {
    String now = new SqliteDialect().now();
    assertTrue(now.contains("julianday('now')"), now);
    String cheap = now.replace("julianday('now')", "j");
    // julian days from 1970 to about 2286 (spread by a multiplicative hash; random() would be
    // evaluated once per use of the column): whole, half and other milliseconds, and values just
    // below and above each half millisecond
    String days =
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 200000),"
            + " ms(m) AS (SELECT (i * 2654435761 * 1009) % 10000000000000 + f FROM n,"
            + " (SELECT 0.0 AS f UNION ALL SELECT 0.5 UNION ALL SELECT 0.4999 UNION ALL"
            + " SELECT 0.5001 UNION ALL SELECT 0.123))"
            + " SELECT COUNT(*), SUM(("
            + cheap
            + ") <> ("
            + ROUNDED
            + ")) FROM (SELECT m / 86400000.0 + 2440587.5 AS j FROM ms)";
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(days)) {
      rs.next();
      assertEquals(1_000_005, rs.getLong(1));
      assertEquals(0, rs.getLong(2), "times where + 0.5 and ROUND differ");
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT "
                    + now
                    + ", CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)")) {
      rs.next();
      assertEquals(rs.getLong(2), rs.getLong(1), "the clock itself");
      assertTrue(Math.abs(rs.getLong(1) - System.currentTimeMillis()) < 60_000);
    }
  }
}

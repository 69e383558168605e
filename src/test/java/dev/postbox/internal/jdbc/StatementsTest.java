package dev.postbox.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The SQLite statement cache keeps statements across uses of one connection and forgets connections
 * that were closed, so a DataSource without a pool (a new connection per use) does not make it
 * grow.
 */
class StatementsTest {
  @Test
  void aStatementIsReusedOnTheSameConnectionAndForgottenWhenItCloses() throws Exception {
    Path file = Files.createTempFile("postbox-statements", ".db");
    String url = "jdbc:sqlite:" + file;
    Statements statements = new Statements(true);
    AtomicReference<PreparedStatement> first = new AtomicReference<>();
    try (Connection c = DriverManager.getConnection(url)) {
      for (int i = 0; i < 3; i++) {
        long value =
            statements.with(
                c,
                "SELECT ? + 1",
                ps -> {
                  first.compareAndSet(null, ps);
                  assertSame(first.get(), ps, "prepared again on the same connection");
                  ps.setLong(1, 41);
                  try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                  }
                });
        assertEquals(42, value);
      }
    }
    for (int i = 0; i < 100; i++) {
      try (Connection c = DriverManager.getConnection(url)) {
        statements.with(c, "SELECT 1", PreparedStatement::execute);
      }
    }
    assertEquals(1, statements.connections(), "connections remembered after 101 closed ones");
    Files.deleteIfExists(file);
  }
}

package dev.postbox.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Parked;
import dev.postbox.QueueStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoTest {
  @TempDir Path dir;

  @Test
  void deliversTheCommittedOrdersAndParksTheFailingMessage() throws Exception {
    Path file = dir.resolve("demo.db");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    Demo.Result result = run(file, bytes);
    String output = bytes.toString(StandardCharsets.UTF_8);

    assertEquals(1, result.run());
    assertEquals(List.of("order-101", "order-103", "order-104"), result.committedOrders());
    assertEquals("order-102", result.rolledBackOrder());
    assertEquals(
        List.of("order-101:v1", "order-103:v1", "order-104:v1"),
        result.delivered().stream().sorted().toList(),
        output);
    assertEquals(List.of(1, 2, 3), result.invoiceAttempts(), output);
    // the parked invoice keeps its key (the order id) blocked: ordered by key, BLOCK_KEY
    assertEquals(new QueueStats(0, 0, 0, 1, Duration.ZERO, 1), result.stats(), output);
    assertEquals(1, result.parked().size(), output);
    Parked parked = result.parked().get(0);
    assertEquals("invoice-101:v1", parked.ref());
    assertEquals("invoice.requested", parked.topic());
    assertEquals(Demo.MAX_ATTEMPTS, parked.attempts());
    assertTrue(parked.lastError().contains("invoice service unavailable"), parked.lastError());

    // the rolled-back order left nothing behind
    assertEquals(
        List.of("order-101", "order-103", "order-104"),
        strings(file, "SELECT id FROM demo_orders ORDER BY id"));
    assertEquals(List.of("invoice-101:v1"), strings(file, "SELECT event_id FROM postbox_outbox"));
    assertFalse(
        output.lines().anyMatch(line -> line.startsWith("  ") && line.contains("order-102")),
        output);

    // one line per event: three sends, two retries, one park
    assertEquals(3, lines(output, "  sent "), output);
    assertEquals(2, lines(output, "  failed "), output);
    assertEquals(1, lines(output, "  parked "), output);
    assertTrue(output.contains("created the Postbox schema from"), output);
    assertTrue(
        output.contains("stats: pending=0 due=0 leased=0 parked=1 oldestPendingAge=0 ms"), output);
  }

  @Test
  void rerunsOnTheSameFileWithNewOrdersAndOnlyItsOwnParkedMessage() throws Exception {
    Path file = dir.resolve("demo.db");
    run(file, new ByteArrayOutputStream());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    Demo.Result second = run(file, bytes);
    String output = bytes.toString(StandardCharsets.UTF_8);

    assertEquals(2, second.run());
    assertEquals(
        List.of("order-201:v1", "order-203:v1", "order-204:v1"),
        second.delivered().stream().sorted().toList(),
        output);
    assertEquals(List.of(1, 2, 3), second.invoiceAttempts(), output);
    assertEquals(new QueueStats(0, 0, 0, 1, Duration.ZERO, 1), second.stats(), output);
    assertEquals(
        List.of("invoice-201:v1"), second.parked().stream().map(Parked::ref).toList(), output);
    assertTrue(output.contains("discarded invoice-101:v1, parked by an earlier run"), output);
    assertTrue(output.contains("the file holds 3 orders from 1 earlier run\n"), output);
    assertEquals(6, strings(file, "SELECT id FROM demo_orders").size());
  }

  @Test
  void opensTheFileInWalModeWithABusyTimeout() throws Exception {
    try (Connection c = Demo.dataSource(dir.resolve("pragmas.db")).getConnection();
        Statement s = c.createStatement()) {
      assertEquals("wal", pragma(s, "journal_mode"));
      assertEquals("5000", pragma(s, "busy_timeout"));
    }
  }

  @Test
  void splitsTheSchemaFileIntoItsStatements() throws Exception {
    List<String> statements =
        dev.postbox.testing.TestDatabase.statements(
            java.nio.file.Files.readString(Demo.SCHEMA, StandardCharsets.UTF_8));

    assertTrue(statements.get(0).startsWith("CREATE TABLE postbox_outbox ("), statements.get(0));
    assertTrue(statements.get(0).endsWith(")"), statements.get(0));
    assertEquals(
        "CREATE INDEX postbox_outbox_claim ON postbox_outbox (state, available_at, id)",
        statements.get(1));
    for (String statement : statements) {
      assertTrue(statement.startsWith("CREATE "), statement);
      assertFalse(statement.contains("--") || statement.contains(";"), statement);
    }
  }

  private static Demo.Result run(Path file, ByteArrayOutputStream bytes) {
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Demo.run(file, out));
  }

  private static String pragma(Statement s, String name) throws SQLException {
    try (ResultSet rs = s.executeQuery("PRAGMA " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static long lines(String output, String prefix) {
    return output.lines().filter(line -> line.startsWith(prefix)).count();
  }

  private static List<String> strings(Path file, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> values = new ArrayList<>();
      while (rs.next()) {
        values.add(rs.getString(1));
      }
      return values;
    }
  }
}

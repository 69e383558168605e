package dev.postbox.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.dialect.Dialects;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rows whose unique value may be stored already take the insert-if-absent form and are skipped when
 * it is; rows that cannot collide take the plain INSERT, so a collision, were it ever to happen,
 * fails loudly instead of silently dropping the row. Shown on SQLite, which has both forms.
 */
class IdempotentInsertTest {
  private final Dialect sqlite = Dialects.of(Database.SQLITE);
  private final IdempotentInsert insert =
      new IdempotentInsert(
          "t", "k, v", new int[] {Types.VARCHAR, Types.VARCHAR}, "k", "(?, ?)", null);

  @Test
  void aRowThatMayCollideIsSkippedAndOneThatCannotFailsLoudly() throws Exception {
    Path file = Files.createTempFile("postbox-insert", ".db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE t (k TEXT NOT NULL UNIQUE, v TEXT)");
      }
      assertEquals(1, insert.insert(c, sqlite, List.<Object[]>of(row("a", "first")), false));
      assertEquals(
          0, insert.insert(c, sqlite, List.<Object[]>of(row("a", "second")), true), "skipped");
      assertEquals(
          1,
          insert.insert(c, sqlite, List.of(row("a", "third"), row("b", "fourth")), true),
          "only the new one");
      SQLException collision =
          assertThrows(
              SQLException.class,
              () -> insert.insert(c, sqlite, List.<Object[]>of(row("b", "fifth")), false));
      assertEquals(true, sqlite.isDuplicateKey(collision), collision.toString());
      try (Statement s = c.createStatement();
          var rs = s.executeQuery("SELECT group_concat(k || '=' || v, ',') FROM t")) {
        rs.next();
        assertEquals("a=first,b=fourth", rs.getString(1), "nothing overwritten");
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static Object[] row(String k, String v) {
    return new Object[] {k, v};
  }
}

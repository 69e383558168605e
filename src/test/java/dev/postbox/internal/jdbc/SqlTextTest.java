package dev.postbox.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlTextTest {

  @Test
  void inlineWritesTheLiteralsInOrderOfTheParameters() {
    assertEquals(
        "DELETE FROM t WHERE leased_by = 'a' AND attempts = 2 AND id IN (7, 8)",
        SqlText.inline(
            "DELETE FROM t WHERE leased_by = ? AND attempts = ? AND id IN (?, ?)",
            List.of("'a'", "2", "7", "8")));
  }

  @Test
  void inlineLeavesAQuestionMarkInsideALiteralAlone() {
    assertEquals(
        "UPDATE t SET a = 'x?' WHERE id = 1",
        SqlText.inline("UPDATE t SET a = ? WHERE id = ?", List.of("'x?'", "1")));
  }

  @Test
  void inlineRefusesMoreOrFewerValuesThanParameters() {
    assertThrows(
        IllegalArgumentException.class, () -> SqlText.inline("a = ? AND b = ?", List.of("1")));
    assertThrows(IllegalArgumentException.class, () -> SqlText.inline("a = ?", List.of("1", "2")));
  }
}

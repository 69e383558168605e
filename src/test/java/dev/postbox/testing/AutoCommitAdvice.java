package dev.postbox.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.PostboxException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * What the refusal of a connection in auto-commit mode must tell: run the call inside the caller's
 * transaction, and the usual way to lose it (a Spring {@code @Transactional} method called from its
 * own class); never to opt out of atomicity.
 */
public final class AutoCommitAdvice {
  private AutoCommitAdvice() {}

  /**
   * Asserts that {@code write}, on a connection of {@code ds} in auto-commit mode, is refused so.
   */
  public static void assertGivenBy(DataSource ds, Consumer<Connection> write) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      assertGiven(assertThrows(PostboxException.class, () -> write.accept(c)).getMessage());
    }
  }

  /** Asserts that a refusal's {@code message} gives that advice. */
  public static void assertGiven(String message) {
    assertTrue(message.contains("the connection is in auto-commit mode"), message);
    assertTrue(message.contains("inside your transaction"), message);
    assertTrue(message.contains("@Transactional"), message);
    assertTrue(message.contains("self-invocation"), message);
    assertFalse(message.contains("allowAutoCommit(true)"), message);
  }
}

package dev.postbox.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransactionRollbackException;
import org.h2.api.ErrorCode;
import org.h2.message.DbException;
import org.junit.jupiter.api.Test;

/**
 * Which errors say the connection broke, so that what was sent may have committed: the same on
 * every database, and H2's own 90067, which its server mode raises without a class 08 SQLState.
 */
class ConnectionBrokenTest {

  @Test
  void connectionErrorsAndServerShutdownsSayTheConnectionBrokeOnEveryDatabase() {
    for (Database database : Database.values()) {
      Dialect dialect = Dialects.of(database);
      String on = " on " + database;
      assertTrue(dialect.connectionBroken(state("08006")), "08006" + on);
      assertTrue(dialect.connectionBroken(state("08S01")), "08S01" + on);
      assertTrue(dialect.connectionBroken(state("57P01")), "57P01" + on);
      assertTrue(
          dialect.connectionBroken(new SQLRecoverableException("x")),
          "SQLRecoverableException" + on);
      // rolled back, or no sign of a connection at all (sqlite-jdbc gives no SQLState)
      assertFalse(dialect.connectionBroken(state("57014")), "57014 cancelled" + on);
      assertFalse(dialect.connectionBroken(state("40001")), "40001" + on);
      assertFalse(dialect.connectionBroken(new SQLException("x")), "no SQLState" + on);
      assertFalse(
          dialect.connectionBroken(new SQLTransactionRollbackException("x", "40P01")),
          "deadlock" + on);
    }
  }

  @Test
  void h2sConnectionBrokenErrorSaysTheConnectionBrokeOnH2Only() {
    SQLException broken = DbException.get(ErrorCode.CONNECTION_BROKEN_1, "x").getSQLException();
    assertEquals("90067", broken.getSQLState());
    assertTrue(Dialects.of(Database.H2).connectionBroken(broken));
    assertFalse(Dialects.of(Database.POSTGRESQL).connectionBroken(broken));
  }

  private static SQLException state(String sqlState) {
    return new SQLException("x", sqlState);
  }
}

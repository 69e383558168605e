package dev.postbox.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.dialect.Dialects;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Transient failures are retried and each retry is reported; anything else fails at once. */
class RetryTest {
  private final Dialect mysql = Dialects.of(Database.MYSQL);

  @Test
  void deadlocksAreRetriedAndEachRetryIsReported() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    List<SQLException> reported = new ArrayList<>();
    String result =
        Retry.transients(
            mysql::isTransient,
            () -> {
              if (calls.incrementAndGet() <= 2) {
                throw new SQLException("Deadlock found when trying to get lock", "40001", 1213);
              }
              return "claimed";
            },
            reported::add);
    assertEquals("claimed", result);
    assertEquals(3, calls.get());
    assertEquals(2, reported.size());
    assertEquals(1213, reported.get(0).getErrorCode());
  }

  @Test
  void aPermanentErrorIsNeitherRetriedNorReported() {
    AtomicInteger calls = new AtomicInteger();
    List<SQLException> reported = new ArrayList<>();
    SQLException syntax = new SQLException("You have an error in your SQL syntax", "42000", 1064);
    SQLException thrown =
        assertThrows(
            SQLException.class,
            () ->
                Retry.transients(
                    mysql::isTransient,
                    () -> {
                      calls.incrementAndGet();
                      throw syntax;
                    },
                    reported::add));
    assertSame(syntax, thrown);
    assertEquals(1, calls.get());
    assertEquals(0, reported.size());
  }

  @Test
  void theLastTransientFailureIsThrownAfterTheAttemptsRunOut() {
    AtomicInteger calls = new AtomicInteger();
    List<SQLException> reported = new ArrayList<>();
    assertThrows(
        SQLException.class,
        () ->
            Retry.transients(
                mysql::isTransient,
                () -> {
                  calls.incrementAndGet();
                  throw new SQLException("Lock wait timeout exceeded", "HY000", 1205);
                },
                reported::add));
    assertEquals(Retry.ATTEMPTS, calls.get());
    assertEquals(Retry.ATTEMPTS - 1, reported.size());
  }
}

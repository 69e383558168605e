package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.Await;
import dev.postbox.testing.CountingVacuums;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A long drain on PostgreSQL vacuums the outbox table as it goes (autovacuum may be off). */
class PostgresVacuumTest extends DatabaseTest {
  /** A role that may read and write the Postbox tables but does not own them. */
  private static final String NOT_OWNER = "postbox_not_owner";

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }

  private long vacuums() {
    return Sql.count(
        ds,
        "SELECT vacuum_count + autovacuum_count FROM pg_stat_user_tables"
            + " WHERE relname = 'postbox_outbox'");
  }

  private long outboxRows() {
    return Sql.count(ds, "SELECT count(*) FROM postbox_outbox");
  }

  private void add(Outbox outbox, String prefix, int n) {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      messages.add(Message.of("t", "{}").eventId(prefix + i));
    }
    Sql.commit(ds, c -> outbox.addAll(c, messages));
  }

  @Test
  void drainVacuumsTheTableEveryVacuumEveryRows() {
    Outbox outbox = Outbox.builder().build();
    add(outbox, "v-", 2000);
    long before = vacuums();
    RecordingTransport transport = new RecordingTransport();
    started(
        Dispatcher.builder(ds)
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20))
            .vacuumEvery(500));

    Await.until(WAIT, "the drain", () -> transport.total.get() == 2000);
    Await.until(WAIT, "a vacuum", () -> vacuums() > before);
    assertEquals(0, transport.duplicated());
  }

  private long vacuumsUnderWay() {
    return Sql.count(
        ds,
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
            + " AND (query LIKE 'VACUUM%postbox_outbox%' OR query LIKE 'ANALYZE%postbox_outbox%')"
            + " AND pid <> pg_backend_pid()");
  }

  /**
   * A vacuum started by a drain's last rows used to run on after close(), into whatever the
   * application did next. Here it waits on a lock another session holds; close() cancels it and
   * returns only when it is over.
   */
  @Test
  void closeCancelsAVacuumUnderWayAndWaitsForIt() throws Exception {
    Outbox outbox = Outbox.builder().build();
    add(outbox, "c-", 100);
    try (Connection blocker = ds.getConnection();
        Statement s = blocker.createStatement()) {
      blocker.setAutoCommit(false);
      // conflicts with VACUUM, not with the claims' and deletes' row locks
      s.execute("LOCK TABLE postbox_outbox IN SHARE UPDATE EXCLUSIVE MODE");
      RecordingTransport transport = new RecordingTransport();
      Dispatcher dispatcher =
          started(
              Dispatcher.builder(ds)
                  .outbox(outbox, transport)
                  .instanceId(nextInstanceId())
                  .pollInterval(Duration.ofMillis(20))
                  .batchSize(50)
                  .vacuumEvery(50));
      Await.until(WAIT, "the drain", () -> transport.total.get() == 100);
      // the fresh table's ANALYZE (its statistics are missing) or the VACUUM: either waits
      Await.until(WAIT, "a vacuum waiting for the lock", () -> vacuumsUnderWay() == 1);

      dispatcher.close();

      assertEquals(0, vacuumsUnderWay(), "vacuums still running after close()");
      blocker.rollback();
    }
    assertEquals(0, outboxRows(), "rows left after the drain");
  }

  /**
   * A non-owner's VACUUM succeeds with only a warning ("skipping … only table or database owner can
   * vacuum it"); it used to go unnoticed, so every vacuumEvery rows sent another useless one.
   */
  @Test
  void nonOwnerVacuumWarningIsARefusalAndNotRetried() {
    grantReadWriteToNotOwner();
    Outbox outbox = Outbox.builder().build();
    add(outbox, "n-", 1000);
    RecordingTransport transport = new RecordingTransport();
    try (HikariDataSource notOwner = notOwnerPool()) {
      CountingVacuums counted = new CountingVacuums(notOwner, null);
      Dispatcher dispatcher =
          started(
              Dispatcher.builder(counted.dataSource())
                  .outbox(outbox, transport)
                  .instanceId(nextInstanceId())
                  .pollInterval(Duration.ofMillis(20))
                  .batchSize(50)
                  .vacuumEvery(50));

      Await.until(WAIT, "the drain", () -> transport.total.get() == 1000);
      Await.until(WAIT, "every row deleted", () -> outboxRows() == 0);
      Await.until(WAIT, "the first vacuum", () -> counted.finished() >= 1 && !counted.inFlight());
      dispatcher.close();
      // the first is the ANALYZE of the fresh table; refused, nothing more is tried
      assertEquals(1, counted.attempts(), "VACUUM or ANALYZE statements sent by a non-owner");
      assertEquals(0, transport.duplicated());
    }
  }

  /** A VACUUM failing with "permission denied" is a refusal too. */
  @Test
  void permissionDeniedVacuumIsARefusalAndNotRetried() {
    Outbox outbox = Outbox.builder().build();
    add(outbox, "p-", 1000);
    CountingVacuums counted =
        new CountingVacuums(
            ds, new SQLException("injected: must be owner of table postbox_outbox", "42501"));
    RecordingTransport transport = new RecordingTransport();
    Dispatcher dispatcher =
        started(
            Dispatcher.builder(counted.dataSource())
                .outbox(outbox, transport)
                .instanceId(nextInstanceId())
                .pollInterval(Duration.ofMillis(20))
                .batchSize(50)
                .vacuumEvery(50));

    Await.until(WAIT, "the drain", () -> transport.total.get() == 1000);
    Await.until(WAIT, "every row deleted", () -> outboxRows() == 0);
    Await.until(WAIT, "the first vacuum", () -> counted.finished() >= 1 && !counted.inFlight());
    dispatcher.close();
    assertEquals(1, counted.attempts(), "VACUUM statements sent after a permission error");
  }

  static Stream<Arguments> passingFailures() {
    return Stream.of(
        Arguments.of(new SQLException("injected connection failure", "08006")),
        Arguments.of(new SQLException("injected admin shutdown", "57P01")),
        Arguments.of(new SQLTransientConnectionException("injected", "08001")),
        Arguments.of(new SQLRecoverableException("injected")),
        Arguments.of(new SQLException("injected statement timeout", "57014")),
        Arguments.of(new IllegalStateException("injected driver bug")),
        Arguments.of(new OutOfMemoryError("injected")));
  }

  /**
   * Any failure but a refusal used to disable vacuuming for good. Neither that nor an unexpected
   * exception or Error may stop it: the next vacuumEvery rows bring the next try.
   */
  @ParameterizedTest
  @MethodSource("passingFailures")
  void failedVacuumIsTriedAgainAfterTheNextVacuumEveryRows(Throwable failure) {
    Outbox outbox = Outbox.builder().build();
    CountingVacuums counted = new CountingVacuums(ds, failure);
    RecordingTransport transport = new RecordingTransport();
    started(
        Dispatcher.builder(counted.dataSource())
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20))
            .batchSize(50)
            .vacuumEvery(50));

    // a first drain whose first vacuum fails
    long before = vacuums();
    add(outbox, "a-", 100);
    Await.until(WAIT, "the first drain", () -> transport.total.get() == 100);
    Await.until(WAIT, "the failed vacuum", () -> counted.finished() >= 1 && !counted.inFlight());

    // Then drains of vacuumEvery * 2 rows each until a vacuum succeeds. More than one may be
    // needed: the failed vacuum's thread may still be logging, and so still counts as running,
    // while the next drain's rows finish.
    for (int round = 1; round <= 10 && counted.succeeded() == 0; round++) {
      add(outbox, "r" + round + "-", 100);
      int delivered = 100 * (round + 1);
      Await.until(WAIT, "drain " + round, () -> transport.total.get() == delivered);
      Await.until(WAIT, "drain " + round + " deleted", () -> outboxRows() == 0);
    }
    Await.until(WAIT, "a vacuum after the failed one", () -> counted.succeeded() >= 1);
    Await.until(WAIT, "the vacuum in the table's statistics", () -> vacuums() > before);
    assertEquals(0, transport.duplicated());
  }

  /** Creates the non-owner role if missing and grants it what a dispatcher needs, and no more. */
  private void grantReadWriteToNotOwner() {
    Sql.commit(
        ds,
        c -> {
          try (var s = c.createStatement()) {
            s.execute(
                "DO $$ BEGIN CREATE ROLE "
                    + NOT_OWNER
                    + " LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;"
                    + " END $$");
            s.execute(
                "GRANT SELECT, INSERT, UPDATE, DELETE ON "
                    + String.join(", ", TestDatabase.TABLES)
                    + ", postbox_outbox_dispatchers TO "
                    + NOT_OWNER);
            s.execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO " + NOT_OWNER);
          }
        });
  }

  /** A pool on the same database as the non-owner role (trust authentication: no password). */
  private HikariDataSource notOwnerPool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(((HikariDataSource) ds).getJdbcUrl());
    config.setUsername(NOT_OWNER);
    config.setPassword("");
    config.setMaximumPoolSize(8);
    return new HikariDataSource(config);
  }
}

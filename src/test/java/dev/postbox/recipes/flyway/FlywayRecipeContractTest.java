package dev.postbox.recipes.flyway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.Job;
import dev.postbox.JobHandler;
import dev.postbox.Jobs;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Flyway recipe on an empty database: one migration creates the shipped schema, a dispatcher
 * starts on it (its start checks every column) and delivers a message and runs a job, and a second
 * migrate finds nothing to do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FlywayRecipeContractTest {
  private static final List<String> DROPPED =
      List.of(
          "postbox_outbox",
          "postbox_outbox_keys",
          "postbox_outbox_dispatchers",
          "postbox_jobs",
          "postbox_jobs_schedules",
          "postbox_jobs_flow",
          "postbox_inbox",
          "flyway_schema_history");

  private TestDatabase db;

  protected abstract TestDatabase open();

  /** The tables the database's shipped schema creates, by name. */
  protected abstract List<String> expectedTables();

  /** The statements in the database's shipped schema file. */
  protected abstract int expectedStatements();

  @BeforeAll
  void openDatabase() {
    db = open();
  }

  @AfterAll
  void closeDatabase() {
    db.close();
  }

  @BeforeEach
  @AfterEach
  void dropTables() throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      for (String table : DROPPED) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
    }
  }

  private Flyway flyway() {
    // the test database holds other suites' tables: adopt it as an existing application would
    return Flyway.configure()
        .dataSource(db.dataSource())
        .baselineOnMigrate(true)
        .baselineVersion("1")
        .javaMigrations(new V1_1__PostboxSchema())
        .load();
  }

  @Test
  void migrateCreatesTheShippedSchemaOnce() throws Exception {
    MigrateResult first = flyway().migrate();

    assertEquals(1, first.migrationsExecuted);
    assertEquals("1.1", first.targetSchemaVersion);
    assertEquals(expectedTables(), postboxTables());
    assertEquals(
        "1.1|PostboxSchema|true",
        Sql.value(
            db.dataSource(),
            "SELECT CONCAT(version, '|', description, '|', CASE WHEN success THEN 'true' ELSE"
                + " 'false' END) FROM flyway_schema_history WHERE type = 'JDBC'"));

    MigrateResult second = flyway().migrate();
    assertEquals(0, second.migrationsExecuted);
  }

  @Test
  void splitsTheShippedSchemaIntoItsStatements() throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      String resource = PostboxSqlMigration.resource(PostboxSqlMigration.folder(c), "schema.sql");
      assertEquals(
          expectedStatements(),
          PostboxSqlMigration.statements(PostboxSqlMigration.read(resource)).size());
    }
  }

  @Test
  void dispatcherDeliversAndRunsJobsOnTheMigratedSchema() {
    flyway().migrate();
    Outbox outbox = Outbox.builder().build();
    Jobs jobs = Jobs.builder().build();
    List<Envelope> sent = new CopyOnWriteArrayList<>();
    List<String> ran = new CopyOnWriteArrayList<>();
    Dispatcher dispatcher =
        Dispatcher.builder(db.dataSource())
            .outbox(outbox, sent::add)
            .jobs(jobs, JobHandler.of("flyway.job", job -> ran.add(job.payload())))
            .instanceId("flyway-recipe")
            .pollInterval(Duration.ofMillis(20))
            .build();
    try (dispatcher) {
      dispatcher.start(); // refuses tables missing a column of this Postbox version
      Sql.commit(
          db.dataSource(),
          c -> {
            outbox.add(c, Message.of("flyway.topic", "{\"n\":1}").eventId("flyway-1"));
            jobs.enqueue(c, Job.of("flyway.job", "{\"n\":2}"));
          });
      // a delivered message's row is deleted once its outcome is written
      Await.until(
          Duration.ofSeconds(30),
          "message sent and deleted, job run",
          () -> sent.size() == 1 && ran.size() == 1 && outboxRows() == 0);
    }

    assertEquals("flyway-1", sent.get(0).eventId());
    assertEquals("flyway.topic", sent.get(0).topic());
    assertEquals("{\"n\":1}", sent.get(0).payload());
    assertEquals(List.of("{\"n\":2}"), ran);
  }

  private long outboxRows() {
    return Sql.count(db.dataSource(), "SELECT COUNT(*) FROM postbox_outbox");
  }

  private List<String> postboxTables() throws SQLException {
    List<String> tables = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        ResultSet rs =
            c.getMetaData()
                .getTables(c.getCatalog(), c.getSchema(), "postbox%", new String[] {"TABLE"})) {
      while (rs.next()) {
        tables.add(rs.getString("TABLE_NAME"));
      }
    }
    tables.sort(null);
    return tables;
  }
}

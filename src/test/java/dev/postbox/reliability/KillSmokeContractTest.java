package dev.postbox.reliability;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The {@code kill -9} scenario of the reliability suite, on its own, in the default build: three
 * dispatcher processes deliver an outbox and run jobs while one of them is killed every few seconds
 * and replaced; nothing is lost, per-key order holds, no row is leased twice at once, and only what
 * was in flight at a kill is delivered twice. Every other scenario runs with {@code -Preliability}
 * ({@link ReliabilityContractTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class KillSmokeContractTest {
  private RelDb db;
  private Scenarios scenarios;

  /** {@code postgresql}, {@code mariadb}, {@code h2} or {@code sqlite}. */
  abstract String database();

  @BeforeAll
  void open() {
    db = RelDb.open(database());
    scenarios = new Scenarios(db, Profile.SHORT);
  }

  @AfterAll
  void close() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void killedDispatchersLoseNothingAndDuplicateOnlyWhatWasInFlight() {
    scenarios.kill9();
  }
}

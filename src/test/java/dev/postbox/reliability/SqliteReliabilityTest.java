package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The reliability scenarios that apply to SQLite, a single-node database: one dispatcher process on
 * a WAL file shared with the producers. Not here: the server restart (no server), clock skew and
 * contention between processes (single node), and out-of-order commits (one writer at a time, so
 * commits cannot interleave). Short in CI; the long version is {@link SqliteReliabilityLongTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqliteReliabilityTest {
  private RelDb db;
  private Scenarios scenarios;

  Profile profile() {
    return Profile.SHORT;
  }

  @BeforeAll
  void open() {
    db = RelDb.sqlite();
    scenarios = new Scenarios(db, profile());
  }

  @AfterAll
  void close() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void rolledBackTransactionsAreNeverDelivered() {
    scenarios.rollbacks();
  }

  @Test
  void killedDispatcherLosesNothingAndDuplicatesOnlyWhatWasInFlight() {
    scenarios.kill9();
  }

  @Test
  void transportOutageParksNothingAndIdles() {
    scenarios.transportOutage();
  }

  @Test
  void poisonIsParkedAfterExactlyMaxAttempts() {
    scenarios.poison(false);
  }

  @Test
  void healthyMessagesAreNotStalledBehindPoisonAfterAFalseOutage() {
    Reporting.Line line = scenarios.poisonStall();
    assertTrue(line.number("healthy_undelivered") == 0, line.toString());
    assertTrue(line.number("worst_healthy_latency_ms") < 5000, line.toString());
  }

  @Test
  void longJobKeepsItsLease() {
    scenarios.longJob(false);
  }
}

package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The reliability scenarios on a database server, each with dispatchers in separate JVMs: a
 * subclass names the database and the size (short in CI, long with {@code -Plong}). Every scenario
 * prints one line of figures; see docs/reliability.md.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ServerReliabilityTest {
  private RelDb db;
  private Scenarios scenarios;

  /** {@code postgresql} or {@code mariadb}. */
  abstract String database();

  abstract Profile profile();

  @BeforeAll
  void open() {
    db = RelDb.open(database());
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
  void killedDispatchersLoseNothingAndDuplicateOnlyWhatWasInFlight() {
    scenarios.kill9();
  }

  @Test
  void dispatchersRecoverByThemselvesFromADatabaseCrash() {
    scenarios.databaseRestart();
  }

  @Test
  void transportOutageParksNothingAndIdles() {
    scenarios.transportOutage();
  }

  @Test
  void skewedApplicationClocksChangeNothing() {
    scenarios.clockSkew();
  }

  @Test
  void twelveClaimersWithBatchOneNeverShareARow() {
    scenarios.contention(1);
  }

  @Test
  void twelveClaimersWithBatchHundredNeverShareARow() {
    scenarios.contention(100);
  }

  @Test
  void transactionsCommittingOutOfOrderAreNotSkipped() {
    scenarios.outOfOrder();
  }

  @Test
  void poisonIsParkedAfterExactlyMaxAttempts() {
    scenarios.poison(false);
  }

  @Test
  void poisonIsCalledAtMostMaxAttemptsTimes() {
    Reporting.Line line = scenarios.poison(true);
    assertTrue(
        line.number("most_calls_of_one_poison") <= line.number("max_attempts"),
        "transport calls of one poison row: " + line);
  }

  @Test
  void healthyMessagesAreNotStalledBehindPoisonAfterAFalseOutage() {
    Reporting.Line line = scenarios.poisonStall();
    assertTrue(line.number("healthy_undelivered") == 0, line.toString());
    assertTrue(line.number("worst_healthy_latency_ms") < 5000, line.toString());
  }

  @Test
  void longJobKeepsItsLeaseAndAStaleCompletionIsRejected() {
    scenarios.longJob(true);
  }
}

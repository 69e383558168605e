package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.OrderedParking;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The reliability scenarios every database runs, each with dispatchers in separate JVMs: a subclass
 * names the database and the size (short in CI, long with {@code -Plong}). Scenarios that need a
 * server or several dispatcher processes are in {@link ServerReliabilityContractTest}. Every
 * scenario prints one line of figures; see docs/reliability.md.
 */
@Tag("reliability") // mvn -B -Preliability verify
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ReliabilityContractTest {
  private RelDb db;
  Scenarios scenarios;
  RecurringScenario recurring;
  LimitScenario limits;

  /** {@code postgresql}, {@code mariadb} or {@code sqlite}. */
  abstract String database();

  abstract Profile profile();

  @BeforeAll
  void open() {
    db = RelDb.open(database());
    scenarios = new Scenarios(db, profile());
    recurring = new RecurringScenario(db, profile(), scenarios);
    limits = new LimitScenario(db, profile(), scenarios);
  }

  @AfterAll
  void close() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void aRecurringJobRunsOncePerTickWhileDispatchersAreKilled() {
    recurring.kill9();
  }

  @Test
  void jobLimitsHoldWhileDispatchersAreKilledAtTheLimit() {
    limits.kill9();
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
  void parkedPoisonBlocksOnlyItsKeyUntilDiscardedThenTheKeyGoesOnInOrder() {
    new OrderedPoisonScenario(scenarios, db, profile()).run(OrderedParking.BLOCK_KEY);
  }

  @Test
  void skippedPoisonLetsItsKeyGoOnInOrder() {
    new OrderedPoisonScenario(scenarios, db, profile()).run(OrderedParking.SKIP);
  }

  /**
   * Where two dispatcher processes run (not on SQLite, a single node), also: a frozen process's
   * stale completion is rejected.
   */
  @Test
  void longJobKeepsItsLease() {
    scenarios.longJob();
  }
}

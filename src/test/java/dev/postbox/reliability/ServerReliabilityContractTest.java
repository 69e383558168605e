package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The reliability scenarios run on database servers only, on top of those every database runs: a
 * crash of the server, dispatcher processes with skewed clocks or contending for one table,
 * producer transactions that commit out of order (SQLite: no server, one dispatcher process, one
 * writer at a time), and poison while healthy traffic flows on.
 */
abstract class ServerReliabilityContractTest extends ReliabilityContractTest {

  @Test
  void dispatchersRecoverByThemselvesFromADatabaseCrash() {
    scenarios.databaseRestart();
  }

  @Test
  void skewedApplicationClocksChangeNothing() {
    scenarios.clockSkew();
    recurring.clockSkew();
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
  void poisonIsCalledAtMostMaxAttemptsTimes() {
    Reporting.Line line = scenarios.poison(true);
    assertTrue(
        line.number("most_calls_of_one_poison") <= line.number("max_attempts"),
        "transport calls of one poison row: " + line);
  }
}

package dev.postbox.reliability;

/**
 * The short reliability scenarios on SQLite, a single-node database: one dispatcher process on a
 * WAL file shared with the producers; {@code mvn -B -Preliability verify}. The long version is
 * {@link SqliteReliabilityLongTest}.
 */
class SqliteReliabilityTest extends ReliabilityContractTest {
  @Override
  String database() {
    return "sqlite";
  }

  @Override
  Profile profile() {
    return Profile.SHORT;
  }
}

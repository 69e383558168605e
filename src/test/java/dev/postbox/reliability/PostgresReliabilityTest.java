package dev.postbox.reliability;

/** The short reliability scenarios on PostgreSQL; {@code mvn -B -Preliability verify}. */
class PostgresReliabilityTest extends ServerReliabilityContractTest {
  @Override
  String database() {
    return "postgresql";
  }

  @Override
  Profile profile() {
    return Profile.SHORT;
  }
}

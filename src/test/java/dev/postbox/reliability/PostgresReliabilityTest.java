package dev.postbox.reliability;

/** The short reliability scenarios on PostgreSQL; part of {@code mvn verify}. */
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

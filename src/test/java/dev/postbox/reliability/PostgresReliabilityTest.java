package dev.postbox.reliability;

/** The short reliability scenarios on PostgreSQL; part of {@code mvn verify}. */
class PostgresReliabilityTest extends ServerReliabilityTest {
  @Override
  String database() {
    return "postgresql";
  }

  @Override
  Profile profile() {
    return Profile.SHORT;
  }
}

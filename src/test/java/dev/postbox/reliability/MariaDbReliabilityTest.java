package dev.postbox.reliability;

/** The short reliability scenarios on MariaDB; part of {@code mvn verify}. */
class MariaDbReliabilityTest extends ServerReliabilityContractTest {
  @Override
  String database() {
    return "mariadb";
  }

  @Override
  Profile profile() {
    return Profile.SHORT;
  }
}

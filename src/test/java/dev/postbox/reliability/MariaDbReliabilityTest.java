package dev.postbox.reliability;

/** The short reliability scenarios on MariaDB; {@code mvn -B -Preliability verify}. */
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

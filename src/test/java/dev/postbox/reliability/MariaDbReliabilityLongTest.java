package dev.postbox.reliability;

import org.junit.jupiter.api.Tag;

/** The long reliability scenarios on MariaDB: {@code mvn -B verify -Plong}. */
@Tag("long")
class MariaDbReliabilityLongTest extends ServerReliabilityContractTest {
  @Override
  String database() {
    return "mariadb";
  }

  @Override
  Profile profile() {
    return Profile.LONG;
  }
}

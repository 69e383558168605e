package dev.postbox.reliability;

import org.junit.jupiter.api.Tag;

/** The long reliability scenarios on SQLite: {@code mvn -B verify -Plong}. */
@Tag("long")
class SqliteReliabilityLongTest extends ReliabilityContractTest {
  @Override
  String database() {
    return "sqlite";
  }

  @Override
  Profile profile() {
    return Profile.LONG;
  }
}

package dev.postbox.reliability;

import org.junit.jupiter.api.Tag;

/** The long reliability scenarios on PostgreSQL: {@code mvn -B verify -Plong}. */
@Tag("long")
class PostgresReliabilityLongTest extends ServerReliabilityContractTest {
  @Override
  String database() {
    return "postgresql";
  }

  @Override
  Profile profile() {
    return Profile.LONG;
  }
}

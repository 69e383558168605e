package dev.postbox.reliability;

/** The kill -9 smoke scenario on PostgreSQL; part of {@code mvn verify}. */
class PostgresKillSmokeTest extends KillSmokeContractTest {
  @Override
  String database() {
    return "postgresql";
  }
}

package dev.postbox.reliability;

/** The kill -9 smoke scenario on SQLite; part of {@code mvn verify}. */
class SqliteKillSmokeTest extends KillSmokeContractTest {
  @Override
  String database() {
    return "sqlite";
  }
}

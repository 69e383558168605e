package dev.postbox.reliability;

/** The kill -9 smoke scenario on MariaDB; part of {@code mvn verify}. */
class MariaDbKillSmokeTest extends KillSmokeContractTest {
  @Override
  String database() {
    return "mariadb";
  }
}

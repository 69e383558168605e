package dev.postbox.reliability;

/**
 * The kill -9 smoke scenario on H2 in server mode (an H2 TCP server in the test JVM, the dispatcher
 * processes connected over {@code jdbc:h2:tcp://}): embedded, a killed dispatcher would take the
 * database with it. Part of {@code mvn verify}.
 */
class H2KillSmokeTest extends KillSmokeContractTest {
  @Override
  String database() {
    return "h2";
  }
}

package dev.postbox.nats;

import dev.postbox.testing.TestDatabase;

class MariaDbNatsEndToEndTest extends NatsEndToEndContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

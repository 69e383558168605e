package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxShutdownTest extends OutboxShutdownContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

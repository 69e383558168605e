package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxFailureTest extends OutboxFailureContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

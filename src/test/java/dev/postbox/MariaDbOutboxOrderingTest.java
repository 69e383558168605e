package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxOrderingTest extends OutboxOrderingContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

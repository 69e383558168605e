package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxInputTest extends OutboxInputContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

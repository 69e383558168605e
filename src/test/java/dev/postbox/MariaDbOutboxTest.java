package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxTest extends OutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

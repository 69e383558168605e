package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxKeyLockTest extends OutboxKeyLockContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

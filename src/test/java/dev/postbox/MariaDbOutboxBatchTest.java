package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxBatchTest extends OutboxBatchContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

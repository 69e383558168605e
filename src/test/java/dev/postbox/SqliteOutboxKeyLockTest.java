package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxKeyLockTest extends OutboxKeyLockContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxKeyLockTest extends OutboxKeyLockContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

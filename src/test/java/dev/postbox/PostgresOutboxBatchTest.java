package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxBatchTest extends OutboxBatchContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

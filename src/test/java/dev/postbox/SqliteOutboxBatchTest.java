package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxBatchTest extends OutboxBatchContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxFailureTest extends OutboxFailureContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxOrderingTest extends OutboxOrderingContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

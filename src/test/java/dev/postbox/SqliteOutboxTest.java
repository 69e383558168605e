package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxTest extends OutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxInputTest extends OutboxInputContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxShutdownTest extends OutboxShutdownContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

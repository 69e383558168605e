package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxKeepDeliveredTest extends OutboxKeepDeliveredContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxDeliveryTest extends OutboxDeliveryContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

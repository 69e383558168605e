package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxDeliveryTest extends OutboxDeliveryContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

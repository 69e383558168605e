package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxKeepDeliveredTest extends OutboxKeepDeliveredContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

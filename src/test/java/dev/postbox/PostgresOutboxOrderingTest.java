package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxOrderingTest extends OutboxOrderingContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

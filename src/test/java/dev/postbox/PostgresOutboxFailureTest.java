package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxFailureTest extends OutboxFailureContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxShutdownTest extends OutboxShutdownContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

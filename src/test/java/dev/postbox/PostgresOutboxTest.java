package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxTest extends OutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

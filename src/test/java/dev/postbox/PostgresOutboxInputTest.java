package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxInputTest extends OutboxInputContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

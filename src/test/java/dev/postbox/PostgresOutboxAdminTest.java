package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutboxAdminTest extends OutboxAdminContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

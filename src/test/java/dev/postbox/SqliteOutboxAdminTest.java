package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutboxAdminTest extends OutboxAdminContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

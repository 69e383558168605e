package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxAdminTest extends OutboxAdminContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

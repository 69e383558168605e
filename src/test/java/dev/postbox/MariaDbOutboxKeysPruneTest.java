package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxKeysPruneTest extends OutboxKeysPruneContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

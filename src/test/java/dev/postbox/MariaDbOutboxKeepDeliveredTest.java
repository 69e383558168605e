package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxKeepDeliveredTest extends OutboxKeepDeliveredContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

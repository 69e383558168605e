package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutboxDeliveryTest extends OutboxDeliveryContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

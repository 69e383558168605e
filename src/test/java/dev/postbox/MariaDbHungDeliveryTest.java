package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbHungDeliveryTest extends HungDeliveryContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

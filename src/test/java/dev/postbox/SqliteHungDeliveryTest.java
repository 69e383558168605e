package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteHungDeliveryTest extends HungDeliveryContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

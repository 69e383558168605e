package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresHungDeliveryTest extends HungDeliveryContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

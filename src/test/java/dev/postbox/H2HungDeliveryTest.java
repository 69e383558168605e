package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2HungDeliveryTest extends HungDeliveryContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

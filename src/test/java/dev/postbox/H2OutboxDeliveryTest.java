package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxDeliveryTest extends OutboxDeliveryContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

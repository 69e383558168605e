package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxKeepDeliveredTest extends OutboxKeepDeliveredContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

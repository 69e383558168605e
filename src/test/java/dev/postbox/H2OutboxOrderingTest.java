package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxOrderingTest extends OutboxOrderingContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

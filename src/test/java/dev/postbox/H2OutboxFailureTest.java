package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxFailureTest extends OutboxFailureContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

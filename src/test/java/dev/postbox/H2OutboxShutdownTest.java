package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxShutdownTest extends OutboxShutdownContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

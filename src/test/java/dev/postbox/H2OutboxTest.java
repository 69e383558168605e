package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxTest extends OutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

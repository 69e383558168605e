package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxInputTest extends OutboxInputContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2AwaitIdleTest extends AwaitIdleContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

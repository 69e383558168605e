package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxKeyLockTest extends OutboxKeyLockContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

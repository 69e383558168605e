package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxBatchTest extends OutboxBatchContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxKeysPruneTest extends OutboxKeysPruneContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

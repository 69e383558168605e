package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutboxAdminTest extends OutboxAdminContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

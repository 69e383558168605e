package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2ClaimFaultTest extends ClaimFaultContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

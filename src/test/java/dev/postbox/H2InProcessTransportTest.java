package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2InProcessTransportTest extends InProcessTransportContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

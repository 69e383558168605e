package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2PermanentRejectionTest extends PermanentRejectionContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

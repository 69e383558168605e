package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2SnoozeTest extends SnoozeContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

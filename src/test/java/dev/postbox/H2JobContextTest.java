package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2JobContextTest extends JobContextContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

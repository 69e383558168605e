package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2JobsTest extends JobsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2JobNamesTest extends JobNamesContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

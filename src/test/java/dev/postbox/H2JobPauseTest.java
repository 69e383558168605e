package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2JobPauseTest extends JobPauseContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2JobLimitTest extends JobLimitContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OrderedAttemptsTest extends OrderedAttemptsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

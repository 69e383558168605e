package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2InboxTest extends InboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2LostAcknowledgementTest extends LostAcknowledgementContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

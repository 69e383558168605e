package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteLostAcknowledgementTest extends LostAcknowledgementContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresLostAcknowledgementTest extends LostAcknowledgementContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

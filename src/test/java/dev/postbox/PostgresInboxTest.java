package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresInboxTest extends InboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

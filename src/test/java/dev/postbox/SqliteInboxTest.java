package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteInboxTest extends InboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

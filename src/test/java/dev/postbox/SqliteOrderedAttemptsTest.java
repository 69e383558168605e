package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOrderedAttemptsTest extends OrderedAttemptsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

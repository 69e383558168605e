package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOrderedAttemptsTest extends OrderedAttemptsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteJobContextTest extends JobContextContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

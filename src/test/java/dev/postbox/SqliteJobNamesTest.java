package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteJobNamesTest extends JobNamesContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

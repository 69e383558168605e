package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteFailingRowsTest extends FailingRowsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

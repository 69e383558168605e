package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresFailingRowsTest extends FailingRowsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

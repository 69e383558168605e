package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbFailingRowsTest extends FailingRowsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2FailingRowsTest extends FailingRowsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

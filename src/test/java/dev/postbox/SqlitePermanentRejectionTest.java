package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqlitePermanentRejectionTest extends PermanentRejectionContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

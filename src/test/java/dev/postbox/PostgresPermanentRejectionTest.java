package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresPermanentRejectionTest extends PermanentRejectionContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

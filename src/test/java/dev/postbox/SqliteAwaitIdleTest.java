package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteAwaitIdleTest extends AwaitIdleContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

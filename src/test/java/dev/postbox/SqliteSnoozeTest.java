package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteSnoozeTest extends SnoozeContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

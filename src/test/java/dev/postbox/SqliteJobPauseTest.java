package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteJobPauseTest extends JobPauseContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

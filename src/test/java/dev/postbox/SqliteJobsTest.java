package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteJobsTest extends JobsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

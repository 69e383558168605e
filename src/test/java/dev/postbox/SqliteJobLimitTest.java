package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteJobLimitTest extends JobLimitContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteRecurringJobsTest extends RecurringJobsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

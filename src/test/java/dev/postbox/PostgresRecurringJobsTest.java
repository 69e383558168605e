package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresRecurringJobsTest extends RecurringJobsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

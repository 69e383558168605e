package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbRecurringJobsTest extends RecurringJobsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

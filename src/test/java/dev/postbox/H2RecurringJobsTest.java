package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2RecurringJobsTest extends RecurringJobsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

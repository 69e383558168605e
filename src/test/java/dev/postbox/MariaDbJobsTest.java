package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbJobsTest extends JobsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

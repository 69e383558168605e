package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbJobLimitTest extends JobLimitContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

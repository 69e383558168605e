package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbJobPauseTest extends JobPauseContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

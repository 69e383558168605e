package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbJobNamesTest extends JobNamesContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbJobContextTest extends JobContextContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

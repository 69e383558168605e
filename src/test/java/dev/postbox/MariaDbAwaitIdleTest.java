package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbAwaitIdleTest extends AwaitIdleContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

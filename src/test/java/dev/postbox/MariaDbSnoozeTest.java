package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbSnoozeTest extends SnoozeContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

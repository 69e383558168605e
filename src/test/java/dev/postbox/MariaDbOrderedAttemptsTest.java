package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOrderedAttemptsTest extends OrderedAttemptsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

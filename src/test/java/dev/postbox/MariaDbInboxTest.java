package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbInboxTest extends InboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

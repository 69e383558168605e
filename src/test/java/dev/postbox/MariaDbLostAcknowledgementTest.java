package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbLostAcknowledgementTest extends LostAcknowledgementContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

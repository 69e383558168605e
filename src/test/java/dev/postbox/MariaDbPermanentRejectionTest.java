package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbPermanentRejectionTest extends PermanentRejectionContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

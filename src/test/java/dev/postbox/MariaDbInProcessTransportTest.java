package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbInProcessTransportTest extends InProcessTransportContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

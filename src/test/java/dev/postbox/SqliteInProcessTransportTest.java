package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteInProcessTransportTest extends InProcessTransportContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

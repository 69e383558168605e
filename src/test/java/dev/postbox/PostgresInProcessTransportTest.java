package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresInProcessTransportTest extends InProcessTransportContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

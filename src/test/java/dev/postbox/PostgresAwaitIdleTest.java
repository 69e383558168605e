package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresAwaitIdleTest extends AwaitIdleContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

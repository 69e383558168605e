package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresJobContextTest extends JobContextContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

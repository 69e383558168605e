package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresJobNamesTest extends JobNamesContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

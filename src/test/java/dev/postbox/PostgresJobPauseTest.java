package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresJobPauseTest extends JobPauseContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

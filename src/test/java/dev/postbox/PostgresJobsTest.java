package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresJobsTest extends JobsContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

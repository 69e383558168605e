package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresJobLimitTest extends JobLimitContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

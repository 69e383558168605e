package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresSnoozeTest extends SnoozeContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

package dev.postbox.recipes.jdbi;

import dev.postbox.testing.TestDatabase;

class PostgresJdbiOutboxTest extends JdbiOutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

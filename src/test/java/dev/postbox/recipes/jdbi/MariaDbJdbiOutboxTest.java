package dev.postbox.recipes.jdbi;

import dev.postbox.testing.TestDatabase;

class MariaDbJdbiOutboxTest extends JdbiOutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

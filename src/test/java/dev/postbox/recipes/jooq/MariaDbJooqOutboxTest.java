package dev.postbox.recipes.jooq;

import dev.postbox.testing.TestDatabase;
import org.jooq.SQLDialect;

class MariaDbJooqOutboxTest extends JooqOutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }

  @Override
  protected SQLDialect dialect() {
    return SQLDialect.MARIADB;
  }
}

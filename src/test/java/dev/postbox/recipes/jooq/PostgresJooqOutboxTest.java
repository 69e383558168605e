package dev.postbox.recipes.jooq;

import dev.postbox.testing.TestDatabase;
import org.jooq.SQLDialect;

class PostgresJooqOutboxTest extends JooqOutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }

  @Override
  protected SQLDialect dialect() {
    return SQLDialect.POSTGRES;
  }
}

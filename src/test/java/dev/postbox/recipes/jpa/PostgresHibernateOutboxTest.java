package dev.postbox.recipes.jpa;

import dev.postbox.testing.TestDatabase;

class PostgresHibernateOutboxTest extends HibernateOutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

package dev.postbox.recipes.jpa;

import dev.postbox.testing.TestDatabase;

class MariaDbHibernateOutboxTest extends HibernateOutboxContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

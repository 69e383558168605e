package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOrderingAgreementTest extends OrderingAgreementContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

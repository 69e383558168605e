package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOrderingAgreementTest extends OrderingAgreementContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

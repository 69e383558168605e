package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOrderingAgreementTest extends OrderingAgreementContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

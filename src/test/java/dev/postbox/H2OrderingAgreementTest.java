package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OrderingAgreementTest extends OrderingAgreementContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

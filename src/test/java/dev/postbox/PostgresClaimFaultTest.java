package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresClaimFaultTest extends ClaimFaultContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

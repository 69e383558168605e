package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteClaimFaultTest extends ClaimFaultContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

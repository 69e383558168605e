package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbClaimFaultTest extends ClaimFaultContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbOutageEvidenceTest extends OutageEvidenceContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

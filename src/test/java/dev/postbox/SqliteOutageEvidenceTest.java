package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteOutageEvidenceTest extends OutageEvidenceContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

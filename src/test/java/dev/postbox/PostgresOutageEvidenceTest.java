package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresOutageEvidenceTest extends OutageEvidenceContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

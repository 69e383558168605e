package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2OutageEvidenceTest extends OutageEvidenceContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

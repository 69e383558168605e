package dev.postbox.nats;

import dev.postbox.testing.TestDatabase;

class PostgresOrderedNatsEndToEndTest extends OrderedNatsEndToEndContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

package dev.postbox.nats;

import dev.postbox.testing.TestDatabase;

class PostgresNatsEndToEndTest extends NatsEndToEndContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

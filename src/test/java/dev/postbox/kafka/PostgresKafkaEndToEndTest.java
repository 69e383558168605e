package dev.postbox.kafka;

import dev.postbox.testing.TestDatabase;

class PostgresKafkaEndToEndTest extends KafkaEndToEndContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

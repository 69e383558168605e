package dev.postbox.kafka;

import dev.postbox.testing.TestDatabase;

class MariaDbKafkaEndToEndTest extends KafkaEndToEndContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

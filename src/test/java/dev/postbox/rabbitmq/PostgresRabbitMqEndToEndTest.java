package dev.postbox.rabbitmq;

import dev.postbox.testing.TestDatabase;

class PostgresRabbitMqEndToEndTest extends RabbitMqEndToEndContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

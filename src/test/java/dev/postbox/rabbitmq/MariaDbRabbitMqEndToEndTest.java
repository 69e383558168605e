package dev.postbox.rabbitmq;

import dev.postbox.testing.TestDatabase;

class MariaDbRabbitMqEndToEndTest extends RabbitMqEndToEndContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

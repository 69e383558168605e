package dev.postbox.nats;

import dev.postbox.testing.TestDatabase;

class MariaDbOrderedNatsEndToEndTest extends OrderedNatsEndToEndContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

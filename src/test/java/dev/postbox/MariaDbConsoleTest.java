package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbConsoleTest extends ConsoleContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

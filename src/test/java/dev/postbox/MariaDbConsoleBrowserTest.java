package dev.postbox;

import dev.postbox.testing.TestDatabase;

class MariaDbConsoleBrowserTest extends ConsoleBrowserContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }
}

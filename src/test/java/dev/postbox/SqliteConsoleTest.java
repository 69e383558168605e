package dev.postbox;

import dev.postbox.testing.TestDatabase;

class SqliteConsoleTest extends ConsoleContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.sqlite();
  }
}

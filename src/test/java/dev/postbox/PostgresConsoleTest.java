package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresConsoleTest extends ConsoleContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }
}

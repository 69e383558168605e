package dev.postbox;

import dev.postbox.testing.TestDatabase;

class H2ConsoleTest extends ConsoleContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }
}

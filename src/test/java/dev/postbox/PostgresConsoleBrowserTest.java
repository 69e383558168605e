package dev.postbox;

import dev.postbox.testing.TestDatabase;

class PostgresConsoleBrowserTest extends ConsoleBrowserContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }

  @Override
  protected boolean takesScreenshots() {
    return true; // the docs show PostgreSQL's run
  }
}

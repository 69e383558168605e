package dev.postbox.recipes.flyway;

import dev.postbox.testing.TestDatabase;
import java.util.List;

class MariaDbFlywayRecipeTest extends FlywayRecipeContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb(4);
  }

  @Override
  protected List<String> expectedTables() {
    return List.of(
        "postbox_inbox",
        "postbox_jobs",
        "postbox_jobs_flow",
        "postbox_jobs_schedules",
        "postbox_outbox",
        "postbox_outbox_dispatchers",
        "postbox_outbox_keys");
  }

  @Override
  protected int expectedStatements() {
    return 7; // seven tables, their indexes inline
  }
}

package dev.postbox.recipes.flyway;

import dev.postbox.testing.TestDatabase;
import java.util.List;

class PostgresFlywayRecipeTest extends FlywayRecipeContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres(4);
  }

  @Override
  protected List<String> expectedTables() {
    return List.of(
        "postbox_inbox",
        "postbox_jobs",
        "postbox_jobs_flow",
        "postbox_jobs_schedules",
        "postbox_outbox",
        "postbox_outbox_dispatchers");
  }

  @Override
  protected int expectedStatements() {
    return 13; // six tables, seven indexes (three of them partial ones for admissions)
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Tag;

@Tag("reliability") // through PgBouncer (.ci/run starts it): mvn -B -Preliability verify
class PgBouncerOutboxBatchTest extends OutboxBatchContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.pgbouncer();
  }
}

package dev.postbox;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Tag;

@Tag("reliability") // through PgBouncer (.ci/run starts it): mvn -B -Preliability verify
class PgBouncerOutboxFailureTest extends OutboxFailureContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.pgbouncer();
  }
}

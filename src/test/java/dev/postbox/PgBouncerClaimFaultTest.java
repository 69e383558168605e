package dev.postbox;

import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Tag;

@Tag("reliability") // through PgBouncer (.ci/run starts it): mvn -B -Preliability verify
class PgBouncerClaimFaultTest extends ClaimFaultContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.pgbouncer();
  }
}

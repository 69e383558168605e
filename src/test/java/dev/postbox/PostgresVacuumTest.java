package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A long drain on PostgreSQL vacuums the outbox table as it goes (autovacuum may be off). */
class PostgresVacuumTest extends DatabaseTest {

  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }

  private long vacuums() {
    return Sql.count(
        ds,
        "SELECT vacuum_count + autovacuum_count FROM pg_stat_user_tables"
            + " WHERE relname = 'postbox_outbox'");
  }

  @Test
  void drainVacuumsTheTableEveryVacuumEveryRows() {
    Outbox outbox = Outbox.builder().build();
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      messages.add(Message.of("t", "{}").eventId("v-" + i));
    }
    Sql.commit(ds, c -> outbox.addAll(c, messages));
    long before = vacuums();
    RecordingTransport transport = new RecordingTransport();
    started(
        Dispatcher.builder(ds)
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20))
            .vacuumEvery(500));

    Await.until(Duration.ofSeconds(60), "the drain", () -> transport.total.get() == 2000);
    Await.until(Duration.ofSeconds(60), "a vacuum", () -> vacuums() > before);
    assertEquals(0, transport.duplicated());
  }
}

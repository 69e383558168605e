package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A built object keeps the options it was built with, whatever happens to its builder later; and
 * every option refuses null with an {@link InvalidValueException} that names it.
 */
class BuiltSettingsTest {
  private static final DataSource NO_DATABASE =
      new DataSource() {
        @Override
        public Connection getConnection() {
          throw new UnsupportedOperationException("no database in this test");
        }

        @Override
        public Connection getConnection(String user, String password) {
          return getConnection();
        }

        @Override
        public java.io.PrintWriter getLogWriter() {
          return null;
        }

        @Override
        public void setLogWriter(java.io.PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
          return 0;
        }

        @Override
        public Logger getParentLogger() {
          return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
          throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
          return false;
        }
      };

  @Test
  void aDispatcherKeepsItsInstanceIdWhenItsBuilderChangesAfterBuild() {
    // regression: build() handed the live builder to the dispatcher
    Dispatcher.Builder builder =
        Dispatcher.builder(NO_DATABASE)
            .outbox(Outbox.builder().build(), envelope -> {})
            .instanceId("first");
    Dispatcher built = builder.build();
    builder.instanceId("second");
    assertEquals("first", built.instanceId());
  }

  @Test
  void twoDispatchersBuiltFromOneBuilderHaveTheirOwnDefaultInstanceIds() {
    // regression: the default instance id was made once per builder, so both leased as one
    Dispatcher.Builder builder =
        Dispatcher.builder(NO_DATABASE).outbox(Outbox.builder().build(), envelope -> {});
    assertNotEquals(builder.build().instanceId(), builder.build().instanceId());
  }

  @Test
  void anOutboxJobsAndInboxKeepTheirTablesWhenTheirBuildersChangeAfterBuild() {
    Outbox.Builder outboxes = Outbox.builder().table("first_outbox");
    Outbox outbox = outboxes.build();
    outboxes.table("second_outbox");
    assertEquals("first_outbox", outbox.table());

    Jobs.Builder jobQueues = Jobs.builder().table("first_jobs");
    Jobs jobs = jobQueues.build();
    jobQueues.table("second_jobs");
    assertEquals("first_jobs", jobs.table());

    Inbox.Builder inboxes = Inbox.builder().table("first_inbox").retention(Duration.ofDays(2));
    Inbox inbox = inboxes.build();
    inboxes.table("second_inbox").retention(Duration.ofDays(3));
    assertEquals("first_inbox", inbox.table());
    assertEquals(Duration.ofDays(2), inbox.retention());
  }

  @Test
  @SuppressWarnings("removal")
  void theNotifyOptionsFormerNamesStillSetIt() {
    assertTrue(Outbox.builder().notifyOnAdd(true).build().notifies(), "notifyOnAdd");
    assertTrue(Jobs.builder().notifyOnEnqueue(true).build().notifies(), "notifyOnEnqueue");
    assertTrue(Outbox.builder().notifyDispatchers(true).build().notifies(), "outbox");
    assertTrue(Jobs.builder().notifyDispatchers(true).build().notifies(), "jobs");
    assertFalse(Outbox.builder().build().notifies(), "outbox default");
    assertFalse(Jobs.builder().build().notifies(), "jobs default");
  }

  @Test
  void anInProcessTransportKeepsItsHandlersWhenItsBuilderChangesAfterBuild() throws Exception {
    List<String> handled = new ArrayList<>();
    InProcessTransport.Builder builder =
        InProcessTransport.builder().on("a", envelope -> handled.add("a"));
    InProcessTransport transport = builder.build();
    builder.on("b", envelope -> handled.add("b"));
    Envelope b = new Envelope("e-1", "b", null, "{}", Map.of(), 1, Instant.now());
    assertThrows(RejectedMessageException.class, () -> transport.send(b));
    assertEquals(List.of(), handled);
  }

  @Test
  void everyBuilderOptionRefusesNullNamingTheOption() {
    Dispatcher.Builder d = Dispatcher.builder(NO_DATABASE);
    Outbox outbox = Outbox.builder().build();
    assertNamed("dataSource", () -> Dispatcher.builder(null));
    assertNamed("outbox", () -> d.outbox(null, envelope -> {}));
    assertNamed("transport", () -> d.outbox(outbox, null));
    assertNamed("jobs", () -> d.jobs(null));
    assertNamed("handlers", () -> d.jobs(Jobs.builder().build(), (JobHandler[]) null));
    assertNamed("inbox", () -> d.inbox(null));
    assertNamed("pollInterval", () -> d.pollInterval(null));
    assertNamed("lease", () -> d.lease(null));
    assertNamed("sendTimeout", () -> d.sendTimeout(null));
    assertNamed("backoff", () -> d.backoff(null));
    assertNamed("instanceId", () -> d.instanceId(null));
    assertNamed("shutdownTimeout", () -> d.shutdownTimeout(null));
    assertNamed("cleanupInterval", () -> d.cleanupInterval(null));
    assertNamed("listener", () -> d.listener(null));
    assertNamed("database", () -> d.database(null));

    Outbox.Builder o = Outbox.builder();
    assertNamed("table", () -> o.table(null));
    assertNamed("headers", () -> o.headers(null));

    Jobs.Builder j = Jobs.builder();
    assertNamed("table", () -> j.table(null));
    assertNamed("retention", () -> j.retention(null));
    assertNamed("timeout", () -> j.timeout(null));
    assertNamed("timeout", () -> JobHandler.of("n", job -> {}).timeout(null));

    Inbox.Builder i = Inbox.builder();
    assertNamed("table", () -> i.table(null));
    assertNamed("retention", () -> i.retention(null));

    InProcessTransport.Builder t = InProcessTransport.builder();
    assertNamed("topic", () -> t.on(null, envelope -> {}));
    assertNamed("handler", () -> t.on("a", null));

    Message m = Message.of("t", "{}");
    assertNamed("topic", () -> Message.of(null, "{}"));
    assertNamed("payload", () -> Message.of("t", null));
    assertNamed("eventId", () -> m.eventId(null));
    assertNamed("key", () -> m.key(null));
    assertNamed("header name", () -> m.header(null, "v"));
    assertNamed("headers", () -> m.headers(null));

    Job job = Job.of("n", "{}");
    assertNamed("name", () -> Job.of(null, "{}"));
    assertNamed("payload", () -> Job.of("n", null));
    assertNamed("delay", () -> job.delay(null));
    assertNamed("dedupeKey", () -> job.dedupeKey(null));
  }

  private static void assertNamed(String option, Executable call) {
    InvalidValueException e = assertThrows(InvalidValueException.class, call, option);
    assertEquals(option, e.field(), e.getMessage());
  }
}

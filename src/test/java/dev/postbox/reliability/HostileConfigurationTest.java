package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import dev.postbox.Inbox;
import dev.postbox.InvalidValueException;
import dev.postbox.Jobs;
import dev.postbox.Outbox;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Scenario 11, configuration half: hostile table names and options are rejected when they are set,
 * before any SQL is built or a connection borrowed, with a message that names the option.
 */
class HostileConfigurationTest {

  /** Names an attacker or a typo could put into configuration; none may reach SQL. */
  static final List<String> HOSTILE_TABLE_NAMES =
      List.of(
          "",
          " ",
          "postbox_outbox;",
          "postbox_outbox; DROP TABLE postbox_jobs",
          "postbox_outbox--",
          "postbox_outbox -- comment",
          "postbox_outbox/*",
          "\"postbox_outbox\"",
          "`postbox_outbox`",
          "[postbox_outbox]",
          "postbox'outbox",
          "postbox_outbox' OR '1'='1",
          "a.b.c",
          ".postbox_outbox",
          "postbox_outbox.",
          "public..postbox_outbox",
          "1postbox",
          "postbox outbox",
          "postbox\toutbox",
          "postbox\noutbox",
          "postbox\u0000outbox",
          "tåble",
          "表",
          "postbox_outbox\u200b",
          "ｐｏｓｔｂｏｘ",
          "x".repeat(64),
          "s." + "x".repeat(64),
          "x".repeat(64) + ".t",
          "x".repeat(10_000),
          "postbox-outbox",
          "postbox$outbox",
          "postbox%outbox",
          "(SELECT 1)");

  @Test
  void hostileTableNamesAreRejectedBeforeAnySqlRuns() {
    AtomicInteger connections = new AtomicInteger();
    DataSource watched = countingDataSource(connections);
    List<String> accepted = new ArrayList<>();
    for (String name : HOSTILE_TABLE_NAMES) {
      expectRejected(accepted, name, "table", n -> Outbox.builder().table(n));
      expectRejected(accepted, name, "table", n -> Jobs.builder().table(n));
      expectRejected(accepted, name, "table", n -> Inbox.builder().table(n));
      expectRejected(
          accepted,
          name,
          "table",
          n ->
              Dispatcher.builder(watched)
                  .outbox(Outbox.builder().table(n).build(), envelope -> {})
                  .build()
                  .start());
    }
    assertEquals(List.of(), accepted, "hostile table names accepted");
    assertEquals(0, connections.get(), "a connection was borrowed for a hostile name");
    Reporting.Line line =
        new Reporting.Line("hostile-config", "none")
            .put("table_names_tried", HOSTILE_TABLE_NAMES.size() * 4)
            .put("accepted", accepted.size())
            .put("connections_borrowed", connections.get());
    line.print("short");
  }

  @Test
  void theLongestLegalNamesStillWork() {
    // a table part leaves room for the tables named after it: <outbox>_dispatchers,
    // <jobs>_schedules
    String outbox = "x".repeat(63 - "_dispatchers".length());
    String jobs = "x".repeat(63 - "_schedules".length());
    String part = "x".repeat(63);
    assertEquals(outbox, Outbox.builder().table(outbox).build().table());
    assertEquals(part + "." + jobs, Jobs.builder().table(part + "." + jobs).build().table());
    assertEquals(part, Inbox.builder().table(part).build().table());
    assertEquals("_a1", Inbox.builder().table("_a1").build().table());
  }

  @Test
  void hostileDispatcherOptionsAreRejectedWhenSet() {
    DataSource ds = countingDataSource(new AtomicInteger());
    Dispatcher.Builder b = Dispatcher.builder(ds);
    for (String id : List.of("", "a\nb", "a\u0000b", "x".repeat(101))) {
      InvalidValueException e = assertThrows(InvalidValueException.class, () -> b.instanceId(id));
      assertEquals("instanceId", e.field());
    }
    assertEquals(
        "batchSize", assertThrows(InvalidValueException.class, () -> b.batchSize(0)).field());
    assertEquals(
        "concurrency",
        assertThrows(InvalidValueException.class, () -> b.concurrency(10_001)).field());
    assertEquals(
        "lease",
        assertThrows(InvalidValueException.class, () -> b.lease(Duration.ofMillis(999))).field());
    assertEquals(
        "pollInterval",
        assertThrows(InvalidValueException.class, () -> b.pollInterval(Duration.ofDays(2)))
            .field());
    assertThrows(InvalidValueException.class, () -> b.lease(Duration.ofSeconds(-1)));
    assertThrows(InvalidValueException.class, () -> b.maxAttempts(0));
    assertThrows(InvalidValueException.class, () -> Outbox.builder().payloadLimit(0));
    assertThrows(
        InvalidValueException.class, () -> Outbox.builder().payloadLimit(64 * 1024 * 1024 + 1));
    assertThrows(
        InvalidValueException.class, () -> Jobs.builder().retention(Duration.ofSeconds(-1)));
  }

  private static void expectRejected(
      List<String> accepted, String name, String field, Consumer<String> configure) {
    try {
      configure.accept(name);
      accepted.add(name);
    } catch (InvalidValueException e) {
      assertEquals(field, e.field(), e.getMessage());
      assertTrue(e.getMessage().contains("table"), e.getMessage());
      assertFalse(e.getMessage().contains("\u0000"), "raw control character in the message");
      assertTrue(e.getMessage().length() < 400, "an over-long name is echoed whole");
    }
  }

  /** A DataSource that counts every call and supports none. */
  static DataSource countingDataSource(AtomicInteger calls) {
    return (DataSource)
        Proxy.newProxyInstance(
            HostileConfigurationTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("toString")) {
                return "counting-datasource";
              }
              if (method.getName().equals("hashCode")) {
                return 0;
              }
              if (method.getName().equals("equals")) {
                return proxy == args[0];
              }
              calls.incrementAndGet();
              throw new UnsupportedOperationException(method.getName());
            });
  }
}

package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.ConsoleClient;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code Outbox.Builder.keepDelivered}: delivered rows kept as done for a window, their event ids
 * taken meanwhile, shown by the console, deleted after; proven on every database.
 */
public abstract class OutboxKeepDeliveredContractTest extends OutboxSuite {
  private final Outbox keeping = Outbox.builder().keepDelivered(Duration.ofHours(1)).build();

  private long done() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 1");
  }

  @Test
  void deliveredRowsAreKeptAsDoneTheirEventIdsStayTakenAndTheirKeysGoOn() throws Exception {
    RecordingTransport transport = new RecordingTransport();
    Dispatcher d = started(dispatcher(keeping, transport));
    Sql.commit(ds, c -> keeping.add(c, Message.of("t", "{}").key("k").eventId("e-1")));
    Sql.commit(ds, c -> keeping.add(c, Message.of("t", "{}").eventId("e-2")));
    Await.until(WAIT, "both kept as done", () -> done() == 2);

    boolean[] addedAgain = new boolean[1];
    Sql.commit(ds, c -> addedAgain[0] = keeping.add(c, Message.of("t", "{}").eventId("e-1")));
    assertFalse(addedAgain[0], "a kept event id is taken");
    Sql.commit(ds, c -> keeping.add(c, Message.of("t", "{}").key("k").eventId("e-3")));
    d.wakeUp();
    Await.until(WAIT, "the key's next message", () -> transport.count("e-3") == 1);
    assertTrue(d.awaitIdle(WAIT));
    assertEquals(1, transport.count("e-1"));
    assertEquals(3, transport.total.get());
    assertEquals(3, done());
    try (var c = ds.getConnection()) {
      assertEquals(0, keeping.countPending(c));
    }

    try (Console console =
        Console.builder(ds).outbox(keeping).bind(new InetSocketAddress("127.0.0.1", 0)).start()) {
      ConsoleClient http = new ConsoleClient(console.address());
      String row = http.get("api/row?table=postbox_outbox&ref=e-1").body();
      assertTrue(row.contains("\"state\":\"done\",\"attempts\":1"), row);
      assertTrue(row.contains("\"finishedAt\":\""), row);
      String page = http.get("row?table=postbox_outbox&ref=e-1").body();
      assertTrue(page.contains("<td class=\"state\">done</td>"), page);
      String missing = http.get("api/row?table=postbox_outbox&ref=never-added").body();
      assertTrue(missing.contains("\"row\":null"), missing);
    }
  }

  @Test
  void keptRowsAreDeletedOnceTheirWindowHasPassedAndTheirIdsCanBeAddedAgain() {
    Outbox brief = Outbox.builder().keepDelivered(Duration.ofMillis(1)).build();
    RecordingTransport transport = new RecordingTransport();
    Dispatcher d = started(dispatcher(brief, transport).cleanupInterval(Duration.ofMillis(50)));
    for (String id : List.of("a", "b", "c")) {
      Sql.commit(ds, c -> brief.add(c, Message.of("t", "{}").eventId(id)));
    }
    d.wakeUp();
    Await.until(
        WAIT, "delivered, kept, then deleted", () -> transport.total.get() == 3 && rows() == 0);

    boolean[] added = new boolean[1];
    Sql.commit(ds, c -> added[0] = brief.add(c, Message.of("t", "{}").eventId("a")));
    assertTrue(added[0], "the window has passed: the id is free");
    d.wakeUp();
    Await.until(WAIT, "sent again", () -> transport.count("a") == 2);
  }

  @Test
  void keepDeliveredRefusesAWindowOutOfRange() {
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            InvalidValueException.class,
            () -> Outbox.builder().keepDelivered(Duration.ofDays(3651)));
    assertTrue(e.getMessage().contains("keepDelivered"), e.getMessage());
  }
}

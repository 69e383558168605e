package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/** In-process handlers and the header supplier, end to end through the outbox on every database. */
public abstract class InProcessTransportContractTest extends DatabaseTest {

  @Test
  void messagesAreRoutedByTopicAndUnknownTopicsAreParkedNeverDropped() throws Exception {
    Queue<String> orders = new ConcurrentLinkedQueue<>();
    Queue<String> refunds = new ConcurrentLinkedQueue<>();
    InProcessTransport transport =
        InProcessTransport.builder()
            .on("order.placed", e -> orders.add(e.eventId()))
            .on("refund.issued", e -> refunds.add(e.eventId()))
            .build();
    Outbox outbox = Outbox.builder().build();
    // three unknown topics and nothing else failing: rejected messages count, they are no outage
    Sql.commit(
        ds,
        c ->
            outbox.addAll(
                c,
                List.of(
                    Message.of("order.placed", "{}").eventId("o-1"),
                    Message.of("refund.issued", "{}").eventId("r-1"),
                    Message.of("nobody.listens", "{}").eventId("n-1"),
                    Message.of("nobody.listens", "{}").eventId("n-2"),
                    Message.of("nobody.listens", "{}").eventId("n-3"))));
    started(
        Dispatcher.builder(ds)
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20))
            .backoff(Backoff.fixed(Duration.ofMillis(10)))
            .maxAttempts(3));

    Await.until(
        Duration.ofSeconds(60),
        "three parked",
        () -> Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2") == 3);
    assertEquals(List.of("o-1"), List.copyOf(orders));
    assertEquals(List.of("r-1"), List.copyOf(refunds));
    try (Connection c = ds.getConnection()) {
      for (Parked p : outbox.parked(c, 10)) {
        assertEquals(3, p.attempts(), p.ref());
        assertTrue(
            p.lastError().contains("no in-process handler for topic 'nobody.listens'"),
            p.lastError());
      }
    }
    assertEquals(
        "topic",
        assertThrows(
                InvalidValueException.class,
                () -> InProcessTransport.builder().on("a", e -> {}).on("a", e -> {}))
            .field());
  }

  @Test
  void headerSupplierAddsHeadersToEveryMessageAndExplicitHeadersWin() throws Exception {
    Outbox traced =
        Outbox.builder()
            .headers(() -> Map.of("traceparent", "00-supplied-01", "tenant", "acme"))
            .build();
    Sql.commit(
        ds,
        c ->
            traced.addAll(
                c,
                List.of(
                    Message.of("t", "{}").eventId("plain"),
                    Message.of("t", "{}")
                        .eventId("explicit")
                        .header("traceparent", "00-explicit-01"))));
    Queue<Envelope> seen = new ConcurrentLinkedQueue<>();
    started(
        Dispatcher.builder(ds)
            .outbox(traced, seen::add)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20)));

    Await.until(
        Duration.ofSeconds(60),
        "both delivered and deleted",
        () -> seen.size() == 2 && Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox") == 0);
    for (Envelope e : seen) {
      String expected = e.eventId().equals("plain") ? "00-supplied-01" : "00-explicit-01";
      assertEquals(Map.of("traceparent", expected, "tenant", "acme"), e.headers(), e.eventId());
    }
    Outbox invalid = Outbox.builder().headers(() -> Map.of("bad", "line\nbreak")).build();
    Sql.commit(
        ds,
        c ->
            assertThrows(InvalidValueException.class, () -> invalid.add(c, Message.of("t", "{}"))));
    assertEquals(0L, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox"));
  }
}

package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.Threads;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Every dispatcher of an outbox table orders it the same way: one that would deliver it unordered
 * next to an ordered one, or skip parked messages next to one that blocks their keys, refuses to
 * start, naming both settings; once the other has stopped, it starts.
 */
public abstract class OrderingAgreementContractTest extends OutboxSuite {
  private final Outbox blocking = Outbox.builder().onParked(OrderedParking.BLOCK_KEY).build();
  private final Outbox skipping = Outbox.builder().onParked(OrderedParking.SKIP).build();
  private final Outbox unordered = Outbox.builder().orderedByKey(false).build();

  @Test
  void anUnorderedDispatcherRefusesToStartNextToAnOrderedOneNamingBoth() throws Exception {
    // regression: it started silently and broke the ordered one's per-key order
    refusedNextTo(blocking, unordered, "orderedByKey=false");
  }

  @Test
  void aDispatcherSkippingParkedMessagesRefusesToStartNextToOneBlockingTheirKeys()
      throws Exception {
    // regression: it started silently and sent the later messages of keys the other one blocks
    refusedNextTo(blocking, skipping, "orderedByKey=true onParked=SKIP");
  }

  private void refusedNextTo(Outbox first, Outbox second, String secondSettings) throws Exception {
    RecordingTransport sent = new RecordingTransport();
    Dispatcher running = started(dispatcher(first, sent));
    Dispatcher refused = built(dispatcher(second, sent));

    PostboxException e = assertThrows(PostboxException.class, refused::start);
    assertTrue(e.getMessage().contains(running.instanceId()), e.getMessage());
    assertTrue(e.getMessage().contains("orderedByKey=true onParked=BLOCK_KEY"), e.getMessage());
    assertTrue(e.getMessage().contains(secondSettings), e.getMessage());
    assertEquals(
        0, Threads.named(refused.instanceId() + "-").size(), "threads of the refused dispatcher");
    assertEquals(1, registered(), "entries: the running dispatcher's only");

    add(Message.of("t", "{}").eventId("k-1").key("k"));
    assertTrue(running.awaitIdle(WAIT));
    assertEquals(1, sent.count("k-1"), "the running dispatcher goes on");
  }

  @Test
  void dispatchersOrderingATableTheSameWayShareIt() throws Exception {
    RecordingTransport sent = new RecordingTransport();
    started(dispatcher(blocking, sent));
    started(dispatcher(Outbox.builder().build(), sent)); // the defaults: BLOCK_KEY
    assertEquals(2, registered(), "entries");
  }

  @Test
  void aDispatcherWithAnotherSettingStartsOnceTheOtherStoppedOrWasLastSeenALeaseAgo()
      throws Exception {
    RecordingTransport sent = new RecordingTransport();
    Dispatcher old = started(dispatcher(blocking, sent));
    old.close();
    assertEquals(0, registered(), "entries after the old one stopped");
    Dispatcher changed = started(dispatcher(unordered, sent));
    changed.close();

    // a dispatcher that crashed: its entry was last refreshed two leases ago
    Sql.update(
        ds,
        "INSERT INTO postbox_outbox_dispatchers (instance_id, settings, started_at, seen_at)"
            + " VALUES ('crashed', 'orderedByKey=true onParked=BLOCK_KEY', "
            + Sql.nowPlusMillis(db)
            + ", "
            + Sql.nowPlusMillis(db)
            + ")",
        -300_000,
        -250_000);
    Dispatcher after = started(dispatcher(unordered, sent).lease(Duration.ofMinutes(2)));
    add(Message.of("t", "{}").eventId("after-crash").key("k"));
    assertTrue(after.awaitIdle(WAIT));
    assertEquals(1, sent.count("after-crash"));
    assertEquals(1, registered(), "the crashed entry is gone");
  }

  private long registered() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox_dispatchers");
  }
}

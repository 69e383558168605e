package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.ClaimCutoff;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On an outbox ordered by key, only a message handed to the transport is charged an attempt: the
 * messages of a run claimed behind their key's head are not, until they are sent. A head that
 * crashes its sender (here: its lease is taken over while the send hangs, as after a {@code kill
 * -9}) spends its own attempts, never its followers'.
 */
public abstract class OrderedAttemptsContractTest extends OutboxSuite {
  private static final int MAX_ATTEMPTS = 2;

  @Test
  void messagesBehindAHeadThatCrashesItsSenderAreSentOnceItIsDiscarded() throws Exception {
    // regression: each claim of the run charged k-1 and k-2 an attempt too, so after the crashed
    // head was parked and discarded they were parked at once, never sent
    Outbox ordered = Outbox.builder().onParked(OrderedParking.BLOCK_KEY).build();
    RecordingTransport sent = crashHeadUntilParked(ordered);

    Sql.commit(ds, c -> assertTrue(ordered.discard(c, "k-0")));
    Dispatcher after = started(dispatcher(ordered, sent).maxAttempts(MAX_ATTEMPTS));
    assertTrue(after.awaitIdle(WAIT));

    assertFollowersSentOnceAtTheirFirstAttempt(sent);
  }

  @Test
  void underSkipMessagesBehindAHeadThatCrashesItsSenderAreSentNotParked() throws Exception {
    // regression: once the crashed head was parked, k-1 and k-2 had as many attempts as it had
    // and were parked at once, never sent
    Outbox skipping = Outbox.builder().onParked(OrderedParking.SKIP).build();
    RecordingTransport sent = crashHeadUntilParked(skipping);

    Dispatcher after = started(dispatcher(skipping, sent).maxAttempts(MAX_ATTEMPTS));
    assertTrue(after.awaitIdle(WAIT));

    assertFollowersSentOnceAtTheirFirstAttempt(sent);
  }

  /**
   * Adds k-0, k-1, k-2 of key k; then, dispatcher after dispatcher, lets the claim of k-0's run
   * hang in k-0's send and takes its lease over, as a crashed process's lease runs out, until a
   * claim parks k-0 for having been claimed more than {@link #MAX_ATTEMPTS} times without an
   * outcome. Returns a transport that recorded every other send.
   */
  private RecordingTransport crashHeadUntilParked(Outbox ordered) throws Exception {
    add(ordered, "k-0", "k-1", "k-2");
    RecordingTransport others = new RecordingTransport();
    for (int crash = 1; crash <= MAX_ATTEMPTS; crash++) {
      CountDownLatch sending = new CountDownLatch(1);
      CountDownLatch crashed = new CountDownLatch(1);
      Transport hangsOnTheHead =
          e -> {
            if (!e.eventId().equals("k-0")) {
              others.send(e);
              return;
            }
            sending.countDown();
            crashed.await();
            throw new IllegalStateException("the process died during this send");
          };
      ClaimCutoff claims = new ClaimCutoff(ds);
      Dispatcher dying =
          started(
              Dispatcher.builder(claims.dataSource())
                  .outbox(ordered, hangsOnTheHead)
                  .instanceId(nextInstanceId())
                  .maxAttempts(MAX_ATTEMPTS));
      assertTrue(sending.await(WAIT.toSeconds(), TimeUnit.SECONDS), "k-0 sent, crash " + crash);
      // the process dies: it claims nothing more, and its lease runs out, so another instance
      // may claim the run; whatever this one still writes is fenced off
      claims.cut();
      Sql.update(
          ds,
          "UPDATE postbox_outbox SET leased_by = 'crashed', available_at = "
              + Sql.nowPlusMillis(db)
              + " WHERE state = 0",
          -1000);
      crashed.countDown();
      dying.close();
    }
    Dispatcher parking = started(dispatcher(ordered, others).maxAttempts(MAX_ATTEMPTS));
    Await.until(
        WAIT,
        "k-0 parked",
        () ->
            Sql.count(
                    ds, "SELECT COUNT(*) FROM postbox_outbox WHERE event_id = 'k-0' AND state = 2")
                == 1);
    assertTrue(parking.awaitIdle(WAIT));
    parking.close();
    assertEquals(0, others.count("k-0"), "k-0 sent by a dispatcher that does not hang");
    return others;
  }

  private void assertFollowersSentOnceAtTheirFirstAttempt(RecordingTransport sent) {
    for (String id : List.of("k-1", "k-2")) {
      assertEquals(1, sent.count(id), id + " sent");
      int attempt =
          sent.envelopes.stream()
              .filter(e -> e.eventId().equals(id))
              .findFirst()
              .orElseThrow()
              .attempt();
      assertEquals(1, attempt, id + "'s attempt when it was sent");
    }
    assertEquals(
        0,
        Sql.count(
            ds,
            "SELECT COUNT(*) FROM postbox_outbox WHERE event_id IN ('k-1', 'k-2') AND state = 2"),
        "followers parked");
  }

  private void add(Outbox o, String... ids) {
    Sql.commit(
        ds,
        c -> {
          for (String id : ids) {
            o.add(c, Message.of("t", "{}").eventId(id).key("k"));
          }
        });
  }
}

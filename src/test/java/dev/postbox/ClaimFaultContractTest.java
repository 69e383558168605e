package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.ClaimStepFault;
import dev.postbox.testing.ClaimStepFault.Mode;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A claim whose connection breaks at any of its steps, before the step runs or after it ran with
 * its answer lost, loses nothing and never lets {@link Dispatcher#awaitIdle} return early: rows it
 * may have leased unseen come back after the lease. Proven at every step of the claim of an outbox
 * ordered by key whose window of due rows is full of rows behind a parked head, so that the claim
 * takes heads with their runs, walks the keys beyond the window and claims what it found there.
 */
public abstract class ClaimFaultContractTest extends OutboxSuite {
  private static final List<String> DELIVERABLE =
      List.of("a0-0", "a0-1", "a1-0", "a1-1", "c0", "c1", "c2", "c3", "u0", "u1", "u2");

  @Test
  void aClaimBrokenBeforeAnyOfItsStepsLosesNothingAndKeepsItBusy() throws Exception {
    everyStep(Mode.BEFORE);
  }

  @Test
  void aClaimWhoseAnswerIsLostAfterAnyOfItsStepsLosesNothingAndKeepsItBusy() throws Exception {
    // regression (PostgreSQL): the claim of heads found beyond the window, run after the first
    // claim committed, swallowed its error: rows it leased stayed unseen, and awaitIdle returned
    everyStep(Mode.AFTER);
  }

  private void everyStep(Mode mode) throws Exception {
    List<String> steps = run(0, mode).claims().get(0); // the first claim, unbroken
    assertTrue(steps.size() > 3, "a claim of several steps: " + steps);
    for (int step = 1; step <= steps.size(); step++) {
      RecordingTransport transport = new RecordingTransport();
      ClaimStepFault fault = run(step, mode, transport);
      String at = mode + " step " + step + " of " + steps;
      assertTrue(fault.injected(), "injected, " + at);
      for (String id : DELIVERABLE) {
        assertEquals(1, transport.count(id), id + " delivered when awaitIdle returned, " + at);
      }
      assertEquals(DELIVERABLE.size(), transport.total.get(), "delivered in all, " + at);
    }
  }

  private ClaimStepFault run(int step, Mode mode) throws Exception {
    return run(step, mode, new RecordingTransport());
  }

  /**
   * Seeds a fresh table and runs a dispatcher until it is idle, breaking its claims at {@code
   * step}.
   */
  private ClaimStepFault run(int step, Mode mode, RecordingTransport transport) throws Exception {
    db.resetSchema();
    ClaimStepFault fault = new ClaimStepFault(db, step, mode);
    Dispatcher dispatcher =
        started(
            Dispatcher.builder(fault.dataSource())
                .outbox(outbox, transport)
                .instanceId(nextInstanceId())
                .batchSize(5)
                .claimsInFlight(1)
                .lease(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMinutes(1)));
    // after its first claim, on the empty table, the claim loop waits for the poll interval; the
    // first claim after that is woken by awaitIdle, so it searches every key: the same steps in
    // every run
    Await.until(WAIT, "the first claim", () -> fault.claimsEnded() > 0);
    seed();
    fault.arm();
    assertTrue(dispatcher.awaitIdle(WAIT), "idle, " + mode + " step " + step);
    dispatcher.close();
    return fault;
  }

  /**
   * Two keys with two rows each, then 13 rows of key p whose first is parked (the window of 10 due
   * rows of a claim of 5 is full once the first two keys are claimed), then four keys of one row
   * and three rows without a key beyond the window.
   */
  private void seed() {
    List<Message> messages = new ArrayList<>();
    for (String key : List.of("a0", "a1")) {
      messages.add(Message.of("t", "{}").eventId(key + "-0").key(key));
      messages.add(Message.of("t", "{}").eventId(key + "-1").key(key));
    }
    for (int i = 0; i <= 12; i++) {
      messages.add(Message.of("t", "{}").eventId("p-" + i).key("p"));
    }
    for (int i = 0; i < 4; i++) {
      messages.add(Message.of("t", "{}").eventId("c" + i).key("c" + i));
    }
    for (int i = 0; i < 3; i++) {
      messages.add(Message.of("t", "{}").eventId("u" + i));
    }
    Sql.commit(
        ds,
        c -> {
          outbox.addAll(c, messages);
          try (var park =
              c.prepareStatement("UPDATE postbox_outbox SET state = 2 WHERE event_id = 'p-0'")) {
            park.executeUpdate();
          }
        });
  }
}

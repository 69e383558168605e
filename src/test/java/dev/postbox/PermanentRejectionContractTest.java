package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.BatchRecordingTransport;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A transport or job handler that knows retrying cannot help throws {@link
 * RejectedMessageException#permanent}: the row is parked on that attempt, whatever attempts it has
 * left, proven on every database.
 */
public abstract class PermanentRejectionContractTest extends OutboxSuite {

  /** Records every attempt; rejects the event ids in {@code rejected} for good. */
  private static final class RejectingTransport extends RecordingTransport {
    final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final List<String> rejected;

    RejectingTransport(String... rejected) {
      this.rejected = List.of(rejected);
    }

    @Override
    public void send(Envelope envelope) throws Exception {
      attempts.computeIfAbsent(envelope.eventId(), k -> new AtomicInteger()).incrementAndGet();
      if (rejected.contains(envelope.eventId())) {
        throw RejectedMessageException.permanent("schema check refused " + envelope.eventId());
      }
      super.send(envelope);
    }

    int attempts(String eventId) {
      AtomicInteger n = attempts.get(eventId);
      return n == null ? 0 : n.get();
    }
  }

  /** A listener recording the reasons of parked rows. */
  private static Listener recordingParked(Queue<String> reasons) {
    return new Listener() {
      @Override
      public void parked(Delivery delivery, String reason) {
        reasons.add(delivery.ref() + ": " + reason);
      }
    };
  }

  private Parked onlyParked() throws Exception {
    try (Connection c = ds.getConnection()) {
      List<Parked> parked = outbox.parked(c, 10);
      assertEquals(1, parked.size(), "parked: " + parked);
      return parked.get(0);
    }
  }

  @Test
  void aPermanentlyRejectedMessageIsParkedOnItsFirstAttemptWithTheReason() throws Exception {
    add(Message.of("t", "{}").eventId("p-1"), Message.of("t", "{}").eventId("ok-1"));
    RejectingTransport transport = new RejectingTransport("p-1");
    Queue<String> parked = new ConcurrentLinkedQueue<>();
    started(dispatcher(transport).maxAttempts(5).listener(recordingParked(parked)));

    Await.until(WAIT, "p-1 parked, ok-1 sent", () -> parked.size() == 1 && rows() == 1);
    assertEquals(1, transport.attempts("p-1"), "attempts of p-1");
    assertEquals(1, transport.count("ok-1"));
    Parked p = onlyParked();
    assertEquals("p-1", p.ref());
    assertEquals(1, p.attempts(), "attempts recorded");
    assertEquals("dev.postbox.RejectedMessageException: schema check refused p-1", p.lastError());
    assertEquals(List.of("p-1: " + p.lastError()), List.copyOf(parked), "listener");
  }

  @Test
  void aBatchTransportThatRejectsOneEnvelopeForGoodParksThatOneOnly() throws Exception {
    add(
        Message.of("t", "{}").eventId("b-0"),
        Message.of("t", "{}").eventId("b-1"),
        Message.of("t", "{}").eventId("b-2"));
    AtomicInteger rejections = new AtomicInteger();
    BatchRecordingTransport transport =
        new BatchRecordingTransport() {
          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            BatchSendException failures = new BatchSendException();
            for (Envelope e : batch) {
              if (e.eventId().equals("b-1")) {
                rejections.incrementAndGet();
                failures.fail(e, RejectedMessageException.permanent("no such topic for b-1"));
              } else {
                send(e);
              }
            }
            if (!failures.failures().isEmpty()) {
              throw failures;
            }
          }
        };
    Queue<String> parked = new ConcurrentLinkedQueue<>();
    started(dispatcher(transport).maxAttempts(5).listener(recordingParked(parked)));

    Await.until(WAIT, "b-1 parked, two sent", () -> parked.size() == 1 && rows() == 1);
    assertEquals(1, rejections.get(), "attempts of b-1");
    assertEquals(1, transport.count("b-0"));
    assertEquals(1, transport.count("b-2"));
    Parked p = onlyParked();
    assertEquals("b-1", p.ref());
    assertEquals(1, p.attempts(), "attempts recorded");
    assertTrue(p.lastError().endsWith("no such topic for b-1"), p.lastError());
  }

  @Test
  void aPermanentlyRejectedHeadBlocksItsKeyUntilDiscarded() throws Exception {
    add(
        Message.of("t", "{}").eventId("k-0").key("k"),
        Message.of("t", "{}").eventId("k-1").key("k"),
        Message.of("t", "{}").eventId("k-2").key("k"));
    RejectingTransport transport = new RejectingTransport("k-0");
    Queue<String> parked = new ConcurrentLinkedQueue<>();
    started(dispatcher(transport).maxAttempts(5).listener(recordingParked(parked)));

    Await.until(WAIT, "k-0 parked", () -> parked.size() == 1);
    try (Connection c = ds.getConnection()) {
      List<BlockedKey> blocked = outbox.blockedKeys(c, 10);
      assertEquals(1, blocked.size(), "blocked keys: " + blocked);
      assertEquals("k-0", blocked.get(0).head().ref());
      assertEquals(1, blocked.get(0).head().attempts(), "parked on its first attempt");
      assertEquals(2, blocked.get(0).waiting(), "waiting behind it");
      assertEquals(0, transport.count("k-1"), "k-1 not sent past its parked head");
      assertTrue(outbox.discard(c, "k-0"));
    }
    Await.until(WAIT, "the rest of k sent", () -> rows() == 0);
    assertEquals(
        List.of("k-1", "k-2"), transport.envelopes.stream().map(Envelope::eventId).toList());
    assertEquals(1, transport.attempts("k-0"), "attempts of k-0");
  }

  @Test
  void withSkipAPermanentlyRejectedMessageIsSetAsideAndItsKeyGoesOn() throws Exception {
    Outbox skipping = Outbox.builder().onParked(OrderedParking.SKIP).build();
    Sql.commit(
        ds,
        c ->
            skipping.addAll(
                c,
                List.of(
                    Message.of("t", "{}").eventId("k-0").key("k"),
                    Message.of("t", "{}").eventId("k-1").key("k"))));
    RejectingTransport transport = new RejectingTransport("k-0");
    Queue<String> parked = new ConcurrentLinkedQueue<>();
    started(dispatcher(skipping, transport).maxAttempts(5).listener(recordingParked(parked)));

    Await.until(WAIT, "k-0 parked, k-1 sent", () -> parked.size() == 1 && rows() == 1);
    assertEquals(1, transport.attempts("k-0"), "attempts of k-0");
    assertEquals(1, transport.count("k-1"));
    assertEquals(1, onlyParked().attempts(), "attempts recorded");
  }

  @Test
  void aJobHandlerThatRejectsAJobForGoodParksItOnItsFirstAttempt() throws Exception {
    Jobs jobs = Jobs.builder().maxAttempts(5).build();
    Sql.commit(ds, c -> jobs.enqueue(c, Job.of("import", "not json")));
    AtomicInteger runs = new AtomicInteger();
    JobHandler handler =
        JobHandler.of(
            "import",
            job -> {
              runs.incrementAndGet();
              throw RejectedMessageException.permanent(
                  "payload of job " + job.id() + " unreadable");
            });
    Queue<String> parked = new ConcurrentLinkedQueue<>();
    started(jobDispatcher(jobs, handler).listener(recordingParked(parked)));

    Await.until(WAIT, "the job parked", () -> parked.size() == 1);
    assertEquals(1, runs.get(), "runs");
    try (Connection c = ds.getConnection()) {
      Parked p = jobs.parked(c, 10).get(0);
      assertEquals(1, p.attempts(), "attempts recorded");
      assertEquals(
          "dev.postbox.RejectedMessageException: payload of job " + p.ref() + " unreadable",
          p.lastError());
    }
  }
}

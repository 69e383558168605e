package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.CapturedStderr;
import dev.postbox.testing.LostAcknowledgement;
import dev.postbox.testing.RecordingListener;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * An outcome whose commit went through while the connection broke before its acknowledgement
 * arrived (the database's own error for a broken connection: H2's server mode raises 90067) is
 * written again, and reported once, as if the acknowledgement had arrived: the parking logged and
 * its listener called, a failure reported, no lease reported lost. Proven on every database.
 */
public abstract class LostAcknowledgementContractTest extends OutboxSuite {
  private static final String PARKED_WARN = "parked postbox_outbox id=";

  @Test
  void aParkingWhoseCommitIsNotAcknowledgedIsLoggedAndReportedOnce() throws Exception {
    // regression: the retry found the row parked by its first try, matched nothing, and neither
    // logged the parking nor called parked
    add(Message.of("t", "{}").eventId("poison"));
    LostAcknowledgement lostAck = new LostAcknowledgement(db, sql -> sql.contains("SET state = 2"));
    lostAck.beforeRetry.countDown();
    RecordingListener listener = new RecordingListener();
    Transport refusing =
        e -> {
          throw new RejectedMessageException("cannot be sent", null);
        };
    try (CapturedStderr log = CapturedStderr.start()) {
      Dispatcher d = started(dispatcherOn(lostAck.dataSource(), refusing).listener(listener));
      Await.until(
          WAIT,
          "parked",
          () -> Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2") == 1);
      d.close(); // the writer is done with its retry, and with its reports

      assertTrue(lostAck.injected(), "the parking's acknowledgement was lost");
      assertEquals(1, listener.count("parked", "poison"), "parked calls");
      assertEquals(1, log.lines(PARKED_WARN), "parking WARNs in:\n" + log.text());
      assertEquals(0, listener.leaseLost.get(), "leases reported lost");
    }
  }

  @Test
  void aFailureWhoseCommitIsNotAcknowledgedIsReportedOnce() {
    // regression: the retry found the failure written by its first try (or the row claimed again
    // after its backoff), matched nothing, and never called failed
    add(Message.of("t", "{}").eventId("flaky"));
    LostAcknowledgement lostAck =
        new LostAcknowledgement(db, sql -> sql.contains("COALESCE(?, last_error)"));
    lostAck.beforeRetry.countDown();
    RecordingListener listener = new RecordingListener();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            super.send(envelope);
            if (envelope.attempt() == 1) {
              throw new IOException("broker hiccup");
            }
          }
        };
    Dispatcher d = started(dispatcherOn(lostAck.dataSource(), transport).listener(listener));
    Await.until(WAIT, "delivered", () -> transport.total.get() == 2 && rows() == 0);
    d.close();

    assertTrue(lostAck.injected(), "the failure's acknowledgement was lost");
    assertEquals(1, listener.count("failed", "flaky"), "failed calls");
    assertEquals(1, listener.count("delivered", "flaky"), "delivered calls");
    assertEquals(0, listener.leaseLost.get(), "leases reported lost");
  }
}

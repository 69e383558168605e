package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.CapturedStderr;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.TestDatabase;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

class H2OutboxBatchTest extends OutboxBatchContractTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }

  /** Deprecated since 0.2.0, until it is removed: on one database, the hand-off is the same. */
  @Test
  @SuppressWarnings("deprecation")
  void aTransportOverridingTheDeprecatedSendBatchStillGetsWholeClaimsAndOneWarn() {
    addNumbered("d-", 30);
    Queue<Integer> batches = new ConcurrentLinkedQueue<>();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            batches.add(batch.size());
            for (Envelope e : batch) {
              send(e);
            }
          }
        };
    try (CapturedStderr log = CapturedStderr.start()) {
      started(dispatcher(transport).batchSize(10));
      Await.until(WAIT, "all delivered", () -> transport.total.get() == 30 && rows() == 0);
      started(dispatcher(transport).batchSize(10)).close(); // a second dispatcher: no second WARN

      assertEquals(30, batches.stream().mapToInt(Integer::intValue).sum(), "sent in batches");
      assertTrue(batches.size() >= 3, "batches: " + batches);
      assertEquals(1, log.lines("implement dev.postbox.BatchTransport"), log.text());
    }
  }
}

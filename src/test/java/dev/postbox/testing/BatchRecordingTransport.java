package dev.postbox.testing;

import dev.postbox.BatchTransport;
import dev.postbox.Envelope;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RecordingTransport} that is a {@link BatchTransport}: records every batch it is handed
 * (a copy), then records each envelope as sent. {@link #send} counts calls in {@link #singleSends}
 * so a test can prove the dispatcher used the batch path only.
 */
public class BatchRecordingTransport extends RecordingTransport implements BatchTransport {
  public final Queue<List<Envelope>> batches = new ConcurrentLinkedQueue<>();
  public final AtomicInteger singleSends = new AtomicInteger();

  @Override
  public void send(Envelope envelope) throws Exception {
    singleSends.incrementAndGet();
    super.send(envelope);
  }

  @Override
  public void sendBatch(List<Envelope> batch) throws Exception {
    batches.add(List.copyOf(batch));
    for (Envelope e : batch) {
      super.send(e);
    }
  }
}

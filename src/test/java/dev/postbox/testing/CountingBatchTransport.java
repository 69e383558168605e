package dev.postbox.testing;

import dev.postbox.BatchTransport;
import dev.postbox.Envelope;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands everything to a broker's {@link BatchTransport} and counts how it came: {@link #batches}
 * handed over, {@link #batched} envelopes in them, and {@link #single} envelopes sent one by one,
 * so a test can prove the dispatcher used the batch path only.
 */
public final class CountingBatchTransport implements BatchTransport {
  public final AtomicInteger batches = new AtomicInteger();
  public final AtomicInteger batched = new AtomicInteger();
  public final AtomicInteger single = new AtomicInteger();
  private final BatchTransport delegate;

  public CountingBatchTransport(BatchTransport delegate) {
    this.delegate = delegate;
  }

  @Override
  public void send(Envelope envelope) throws Exception {
    single.incrementAndGet();
    delegate.send(envelope);
  }

  @Override
  public void sendBatch(List<Envelope> batch) throws Exception {
    batches.incrementAndGet();
    batched.addAndGet(batch.size());
    delegate.sendBatch(batch);
  }
}

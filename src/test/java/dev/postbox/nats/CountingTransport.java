package dev.postbox.nats;

import dev.postbox.BatchSendException;
import dev.postbox.Envelope;
import dev.postbox.Transport;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the envelopes the stream acked and those that failed, sent alone or in batches. */
class CountingTransport implements Transport {
  private final Transport delegate;
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();

  CountingTransport(Transport delegate) {
    this.delegate = delegate;
  }

  @Override
  public void send(Envelope envelope) throws Exception {
    try {
      delegate.send(envelope);
      sent.incrementAndGet();
    } catch (Exception e) {
      failures.incrementAndGet();
      throw e;
    }
  }

  /** A transport that hands whole claims to {@code delegate.sendBatch}, counting likewise. */
  static CountingTransport batching(Transport delegate) {
    return new CountingTransport(delegate) {
      @Override
      public void sendBatch(List<Envelope> batch) throws Exception {
        count(batch, delegate);
      }
    };
  }

  void count(List<Envelope> batch, Transport to) throws Exception {
    try {
      to.sendBatch(batch);
      sent.addAndGet(batch.size());
    } catch (BatchSendException e) {
      int failed = e.failures().size();
      sent.addAndGet(batch.size() - failed);
      failures.addAndGet(failed);
      throw e;
    } catch (Exception e) {
      failures.addAndGet(batch.size());
      throw e;
    }
  }

  int sent() {
    return sent.get();
  }

  int failures() {
    return failures.get();
  }
}

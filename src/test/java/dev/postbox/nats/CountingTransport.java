package dev.postbox.nats;

import dev.postbox.Envelope;
import dev.postbox.Transport;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the envelopes the stream acked and those that failed. */
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

  int sent() {
    return sent.get();
  }

  int failures() {
    return failures.get();
  }
}

package dev.postbox.testing;

import dev.postbox.Envelope;
import dev.postbox.Transport;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the sends that returned (the broker confirmed) and those that threw. Not a {@link
 * dev.postbox.BatchTransport}, whatever it wraps: the dispatcher sends through it one by one.
 */
public final class CountingTransport implements Transport {
  private final Transport delegate;
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();

  public CountingTransport(Transport delegate) {
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

  public int sent() {
    return sent.get();
  }

  public int failures() {
    return failures.get();
  }
}

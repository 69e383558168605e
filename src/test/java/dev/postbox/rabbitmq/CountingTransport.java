package dev.postbox.rabbitmq;

import dev.postbox.Envelope;
import dev.postbox.Transport;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the sends that returned (the broker confirmed) and those that threw. */
final class CountingTransport implements Transport {
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

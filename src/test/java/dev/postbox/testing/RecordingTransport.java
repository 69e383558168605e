package dev.postbox.testing;

import dev.postbox.Envelope;
import dev.postbox.Transport;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** Records every envelope it is given, counting deliveries per event id. */
public class RecordingTransport implements Transport {
  public final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
  public final Queue<Envelope> envelopes = new ConcurrentLinkedQueue<>();
  public final AtomicInteger total = new AtomicInteger();

  @Override
  public void send(Envelope envelope) throws Exception {
    envelopes.add(envelope);
    deliveries.computeIfAbsent(envelope.eventId(), k -> new AtomicInteger()).incrementAndGet();
    total.incrementAndGet();
  }

  public int count(String eventId) {
    AtomicInteger n = deliveries.get(eventId);
    return n == null ? 0 : n.get();
  }

  /** Event ids delivered more than once. */
  public long duplicated() {
    return deliveries.values().stream().filter(n -> n.get() > 1).count();
  }
}

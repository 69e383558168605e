package dev.postbox;

import dev.postbox.internal.lane.BatchDeliverer;
import dev.postbox.internal.lane.Deliverer;
import dev.postbox.internal.sql.Claimed;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How the outbox's lane hands claimed rows to the user's {@link Transport}. */
final class TransportDelivery {
  private static final Logger log = LoggerFactory.getLogger(TransportDelivery.class);

  /** Whether the deprecated-sendBatch WARN was logged for a transport class. */
  private static final ClassValue<AtomicBoolean> WARNED =
      new ClassValue<>() {
        @Override
        protected AtomicBoolean computeValue(Class<?> type) {
          return new AtomicBoolean();
        }
      };

  private TransportDelivery() {}

  /** One row per {@link Transport#send}. */
  static Deliverer<Envelope> single(Transport transport) {
    return row -> transport.send(row.item());
  }

  /**
   * A claim's rows in one {@link BatchTransport#sendBatch}; or, for a transport whose class
   * overrides the deprecated {@link Transport#sendBatch} (checked by reflection: a proxy class
   * counts as overriding), in one call of that, with one WARN per class; else null.
   */
  @SuppressWarnings("deprecation")
  static BatchDeliverer<Envelope> batches(Transport transport) {
    if (transport instanceof BatchTransport batching) {
      return rows -> sendBatch(batching::sendBatch, rows);
    }
    try {
      if (transport.getClass().getMethod("sendBatch", List.class).getDeclaringClass()
          == Transport.class) {
        return null;
      }
    } catch (NoSuchMethodException e) {
      return null;
    }
    if (WARNED.get(transport.getClass()).compareAndSet(false, true)) {
      log.warn(
          "{} overrides Transport.sendBatch, which is deprecated and will be removed: implement"
              + " dev.postbox.BatchTransport instead (same method); its batches are sent whole"
              + " until then",
          transport.getClass().getName());
    }
    return rows -> sendBatch(transport::sendBatch, rows);
  }

  /** A batch sender: {@link BatchTransport#sendBatch} or the deprecated one of a transport. */
  private interface BatchSend {
    void send(List<Envelope> batch) throws Exception;
  }

  private static Map<Claimed<Envelope>, Throwable> sendBatch(
      BatchSend transport, List<Claimed<Envelope>> rows) throws Exception {
    List<Envelope> batch = new ArrayList<>(rows.size());
    for (Claimed<Envelope> row : rows) {
      batch.add(row.item());
    }
    try {
      transport.send(Collections.unmodifiableList(batch));
      return Map.of();
    } catch (BatchSendException e) {
      Map<String, Exception> byEventId = e.failures();
      Map<Claimed<Envelope>, Throwable> failed = new IdentityHashMap<>();
      for (Claimed<Envelope> row : rows) {
        Exception cause = byEventId.get(row.item().eventId());
        if (cause != null) {
          failed.put(row, cause);
        }
      }
      if (failed.isEmpty()) {
        throw e; // names none of this batch: it all failed
      }
      return failed;
    }
  }
}

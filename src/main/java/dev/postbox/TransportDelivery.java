package dev.postbox;

import dev.postbox.internal.lane.BatchDeliverer;
import dev.postbox.internal.lane.Deliverer;
import dev.postbox.internal.sql.Claimed;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** How the outbox's lane hands claimed rows to the user's {@link Transport}. */
final class TransportDelivery {
  private TransportDelivery() {}

  /** One row per {@link Transport#send}. */
  static Deliverer<Envelope> single(Transport transport) {
    return row -> transport.send(row.item());
  }

  /**
   * A claim's rows in one {@link Transport#sendBatch}, or null if the transport's class does not
   * override it (checked by reflection: a proxy class counts as overriding).
   */
  static BatchDeliverer<Envelope> batches(Transport transport) {
    try {
      if (transport.getClass().getMethod("sendBatch", List.class).getDeclaringClass()
          == Transport.class) {
        return null;
      }
    } catch (NoSuchMethodException e) {
      return null;
    }
    return rows -> sendBatch(transport, rows);
  }

  private static Map<Claimed<Envelope>, Throwable> sendBatch(
      Transport transport, List<Claimed<Envelope>> rows) throws Exception {
    List<Envelope> batch = new ArrayList<>(rows.size());
    for (Claimed<Envelope> row : rows) {
      batch.add(row.item());
    }
    try {
      transport.sendBatch(Collections.unmodifiableList(batch));
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

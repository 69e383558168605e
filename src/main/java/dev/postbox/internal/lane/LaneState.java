package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a lane's claim loops, deliveries and writer share about where the lane stands: the rows it
 * holds, whether claims come back full, the idle watch, and whether it is stopping. Thread-safe.
 */
final class LaneState<T> {
  // rows claimed and not yet recorded: waiting to start, running, or waiting for the writer
  final Map<Long, Claimed<T>> held = new ConcurrentHashMap<>();
  final Backlog backlog = new Backlog();
  final IdleWatch idle = new IdleWatch();
  private volatile boolean stopping;

  boolean stopping() {
    return stopping;
  }

  /** From now on the lane is stopping; for good. */
  void stop() {
    stopping = true;
  }

  /** Outcomes written (or dropped): their rows are no longer held. */
  void written(List<Outcome> batch) {
    idle.touched();
    for (Outcome o : batch) {
      // this claim of the row only, by identity: a newer claim may be equal in every field
      held.computeIfPresent(o.row().id(), (id, row) -> row == o.row() ? null : row);
    }
  }
}

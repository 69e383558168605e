package dev.postbox.internal.lane;

import java.util.List;

/**
 * What a lane's claim loops, deliveries and writer share about where the lane stands: the rows it
 * holds, whether claims come back full, the idle watch, and whether it is stopping. Thread-safe.
 */
final class LaneState<T> {
  // rows claimed and not yet recorded: waiting to start, running, or waiting for the writer
  final HeldRows<T> held = new HeldRows<>();
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
    held.removeAll(batch);
  }
}

package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.util.List;
import java.util.Map;

/** Delivers the rows of one claim together, on one virtual thread, outside any transaction. */
@FunctionalInterface
public interface BatchDeliverer<T> {
  /**
   * Returns the rows that were not delivered, each with its cause (keyed by identity; empty if all
   * were delivered); throws to fail them all.
   */
  Map<Claimed<T>, Throwable> deliver(List<Claimed<T>> rows) throws Exception;
}

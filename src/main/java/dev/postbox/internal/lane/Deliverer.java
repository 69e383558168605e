package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;

/** Delivers one claimed row; runs on its own virtual thread, outside any transaction. */
@FunctionalInterface
public interface Deliverer<T> {
  void deliver(Claimed<T> row) throws Exception;
}

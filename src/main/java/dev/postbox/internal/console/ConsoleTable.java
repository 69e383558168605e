package dev.postbox.internal.console;

import dev.postbox.Jobs;
import dev.postbox.Outbox;
import dev.postbox.internal.sql.QueueTable;

/**
 * A queue table the console shows: an outbox's or a job queue's, with the engine's view of it.
 *
 * @param table how the engine sees the table
 * @param outbox the outbox, or null for a job table
 * @param jobs the job queue, or null for an outbox table
 */
public record ConsoleTable(QueueTable<?> table, Outbox outbox, Jobs jobs) {
  String name() {
    return table.name();
  }

  String kind() {
    return outbox != null ? "outbox" : "jobs";
  }
}

package dev.postbox.internal.sql;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialects;

/** The shipped outbox table's statements, for the claim-plan tests. */
final class OutboxStatements {
  private OutboxStatements() {}

  /**
   * The statements of {@code postbox_outbox} on {@code database}, claims of {@code batchSize};
   * {@code order} null if the outbox is not ordered by key.
   */
  static QueueSql of(Database database, KeyOrder order, int batchSize) {
    return QueueSql.of(
        Dialects.of(database),
        new QueueTable<>(
            "postbox_outbox",
            new QueueTable.Columns(
                "event_id, topic, msg_key, payload, headers", "event_id", "topic", "", "msg_key"),
            QueueTable.Clauses.NONE,
            null,
            order,
            null),
        batchSize);
  }
}

package dev.postbox;

import dev.postbox.internal.HeadersCodec;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.KeyOrder;
import dev.postbox.internal.sql.QueueTable;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;

/**
 * The outbox table's own columns: what an add inserts, what a claim returns and how it becomes the
 * {@link Envelope} a transport is given. The columns every queue table has are the engine's.
 */
final class OutboxRows {
  /** The inserted columns; the bound ones first, as in {@link #TUPLE}. */
  static final String INSERTED =
      "event_id, topic, msg_key, payload, headers, available_at, created_at";

  /** The key column, and the place of its value among a row's bound values. */
  static final String KEY = "msg_key";

  static final int KEY_VALUE = 2;

  /** Types of one row's bound values: event id, topic, key, payload, encoded headers. */
  static final int[] TYPES = {
    Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.VARCHAR
  };

  private OutboxRows() {}

  /** One row's values, its clock a placeholder: due at once by the database clock. */
  static final String TUPLE = "(?, ?, ?, ?, ?, {now}, {now})";

  /** How the engine sees the outbox table {@code table}; {@code keyOrder} null if unordered. */
  static QueueTable<Envelope> queueTable(String table, KeyOrder keyOrder) {
    return new QueueTable<>(
        table,
        "event_id, topic, msg_key, payload, headers",
        "event_id",
        "topic",
        "",
        "",
        "",
        "",
        OutboxRows::read,
        keyOrder,
        KEY);
  }

  private static Claimed<Envelope> read(
      ResultSet rs, Dialect d, long id, int attempt, int claims, boolean leased)
      throws SQLException {
    String eventId = rs.getString("event_id");
    String topic = rs.getString("topic");
    Envelope envelope =
        new Envelope(
            eventId,
            topic,
            rs.getString("msg_key"),
            rs.getString("payload"),
            HeadersCodec.decode(rs.getString("headers")),
            attempt,
            d.readInstant(rs, "created_at"));
    return new Claimed<>(id, attempt, claims, 0, eventId, topic, envelope);
  }
}

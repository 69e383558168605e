package dev.postbox;

import dev.postbox.internal.HeadersCodec;
import dev.postbox.internal.Ids;
import dev.postbox.internal.ProducerOptions;
import dev.postbox.internal.Rules;
import dev.postbox.internal.TableWriter;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.KeyOrder;
import dev.postbox.internal.sql.QueueTable;
import dev.postbox.internal.sql.RowReader;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

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

  /**
   * The values of {@code m}'s row, after checking its payload against {@code payloadLimit}; the
   * supplier's headers merged under the message's own, and a UUIDv7 for a message without event id.
   */
  static Object[] row(Message m, int payloadLimit, Supplier<Map<String, String>> headerSupplier) {
    Rules.payload(m.payload(), payloadLimit);
    Map<String, String> headers = m.headers();
    if (headerSupplier != null) {
      Map<String, String> supplied = headerSupplier.get();
      if (supplied != null && !supplied.isEmpty()) {
        Map<String, String> merged = new LinkedHashMap<>(supplied);
        merged.forEach(Rules::header);
        merged.putAll(headers); // explicit headers on the message win
        Rules.headerCount(merged.size());
        headers = merged;
      }
    }
    String eventId = m.eventId() != null ? m.eventId() : Ids.uuidV7();
    return new Object[] {eventId, m.topic(), m.key(), m.payload(), HeadersCodec.encode(headers)};
  }

  /** The writer of an outbox table; one that locks each row's key if {@code orderedByKey}. */
  static TableWriter writer(ProducerOptions options, boolean orderedByKey) {
    TableWriter plain =
        new TableWriter(
            options,
            INSERTED,
            TYPES,
            "event_id",
            TUPLE,
            TableWriter.autoCommitRefusal(
                "the message would not be atomic with your business data", "add"));
    return orderedByKey ? plain.lockingKeys(KEY_VALUE) : plain;
  }

  /** How the engine sees the outbox table {@code table}; {@code keyOrder} null if unordered. */
  static QueueTable<Envelope> queueTable(String table, KeyOrder keyOrder) {
    QueueTable.Columns columns =
        new QueueTable.Columns(
            "event_id, topic, msg_key, payload, headers", "event_id", "topic", "", KEY);
    return new QueueTable<>(
        table, columns, QueueTable.Clauses.NONE, OutboxRows::read, keyOrder, null);
  }

  /** Reads claimed rows of {@code rs} into envelopes, their columns looked up once. */
  private static RowReader.Rows<Envelope> read(ResultSet rs, Dialect d, boolean leased)
      throws SQLException {
    int eventIdColumn = rs.findColumn("event_id");
    int topicColumn = rs.findColumn("topic");
    int keyColumn = rs.findColumn("msg_key");
    int payloadColumn = rs.findColumn("payload");
    int headersColumn = rs.findColumn("headers");
    int createdColumn = rs.findColumn("created_at");
    return (id, attempt, claims) -> {
      String eventId = rs.getString(eventIdColumn);
      String topic = rs.getString(topicColumn);
      Envelope envelope =
          new Envelope(
              eventId,
              topic,
              rs.getString(keyColumn),
              rs.getString(payloadColumn),
              HeadersCodec.decode(rs.getString(headersColumn)),
              attempt,
              d.readInstant(rs, createdColumn));
      return new Claimed<>(id, attempt, claims, 0, eventId, topic, envelope);
    };
  }
}

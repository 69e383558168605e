package dev.postbox.internal.console;

import dev.postbox.internal.sql.QueueTable;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the console's lists and bulk actions match: a topic (or job name) and a key, exactly, and a
 * text the last error contains; null matches everything. Immutable.
 */
record Filter(String topic, String key, String error) {
  static final Filter ALL = new Filter(null, null, null);

  /**
   * The conditions to AND to a statement's WHERE: nothing, or one per value, each with a {@code ?};
   * {@code errorContains} is the database's condition that {@code last_error} contains a text.
   */
  String sql(QueueTable<?> table, String errorContains) {
    return sql(table.columns().topic(), table.columns().listedKey(), errorContains);
  }

  /**
   * The same conditions on a row whose topic and key are the columns {@code topic}, {@code key}.
   */
  String sql(String topicColumn, String keyColumn, String errorContains) {
    StringBuilder sql = new StringBuilder();
    if (topic != null) {
      sql.append(" AND ").append(topicColumn).append(" = ?");
    }
    if (key != null) {
      sql.append(" AND ").append(keyColumn).append(" = ?");
    }
    if (error != null) {
      sql.append(" AND ").append(errorContains);
    }
    return sql.toString();
  }

  /** Binds the values of {@link #sql} from parameter {@code i}; returns the next parameter. */
  int bind(PreparedStatement ps, int i) throws SQLException {
    for (String value : values()) {
      ps.setString(i++, value);
    }
    return i;
  }

  private List<String> values() {
    List<String> values = new ArrayList<>(3);
    if (topic != null) {
      values.add(topic);
    }
    if (key != null) {
      values.add(key);
    }
    if (error != null) {
      values.add(error);
    }
    return values;
  }

  /** Whether it matches every row. */
  boolean all() {
    return topic == null && key == null && error == null;
  }
}

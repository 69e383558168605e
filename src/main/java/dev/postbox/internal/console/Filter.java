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
   * The conditions to AND to a statement's WHERE: nothing, or one per value, each with a {@code ?}.
   */
  String sql(QueueTable<?> table) {
    return sql(table.columns().topic(), table.columns().listedKey());
  }

  /**
   * The same conditions on a row whose topic and key are the columns {@code topic}, {@code key}.
   */
  String sql(String topicColumn, String keyColumn) {
    StringBuilder sql = new StringBuilder();
    if (topic != null) {
      sql.append(" AND ").append(topicColumn).append(" = ?");
    }
    if (key != null) {
      sql.append(" AND ").append(keyColumn).append(" = ?");
    }
    if (error != null) {
      sql.append(" AND last_error LIKE ? ESCAPE '!'");
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
    if (error != null) { // a text the error contains: LIKE's own characters taken literally
      values.add("%" + error.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
    }
    return values;
  }

  /** Whether it matches every row. */
  boolean all() {
    return topic == null && key == null && error == null;
  }
}

package dev.postbox.internal.sql;

/**
 * How a queue table keeps per-key order: the rows of one key are claimed one run at a time, oldest
 * first, and a run starts only at the oldest pending row of its key (its head).
 *
 * @param keyColumn the column holding the key; rows with NULL there are not ordered
 * @param parkedBlocks whether a parked row keeps the later rows of its key from being claimed
 */
public record KeyOrder(String keyColumn, boolean parkedBlocks) {

  /** The states of a row that keep the later rows of its key waiting: pending, and parked. */
  String blockingStates() {
    return parkedBlocks ? "0, 2" : "0";
  }

  /**
   * The claim condition that a keyed row is the head of its key, for a row of {@code table}; rows
   * whose id is in {@code gone} (a subquery, or null) count as finished already. {@code perState}:
   * one check per blocking state, each a range of the key index {@code (key, state, id)}, for a
   * database that does not probe that index with a list of states.
   */
  String headFilter(String table, String gone, boolean perState) {
    if (!perState || !parkedBlocks) {
      return " AND ("
          + table
          + "."
          + keyColumn
          + " IS NULL OR "
          + noPrior(table, gone, blockingStates())
          + ")";
    }
    return " AND ("
        + table
        + "."
        + keyColumn
        + " IS NULL OR ("
        + noPrior(table, gone, "0")
        + " AND "
        + noPrior(table, gone, "2")
        + "))";
  }

  /**
   * The stats' count of pending rows of {@code table} whose time ({@code now}) has come but that
   * wait behind a parked row of their key; 0 unless parked rows block. Read from the first parked
   * row of each key through the key index, so it costs what the blocked keys' rows cost, however
   * many other rows are pending.
   */
  String behindParkedCount(String table, String now) {
    if (!parkedBlocks) {
      return "0";
    }
    return """
        (SELECT COUNT(*) FROM {table} postbox_parked
         JOIN {table} postbox_waiting ON postbox_waiting.{key} = postbox_parked.{key}
           AND postbox_waiting.state = 0 AND postbox_waiting.id > postbox_parked.id
           AND postbox_waiting.available_at <= {now}
         WHERE postbox_parked.state = 2 AND NOT EXISTS (
           SELECT 1 FROM {table} postbox_prior WHERE postbox_prior.{key} = postbox_parked.{key}
             AND postbox_prior.state = 2 AND postbox_prior.id < postbox_parked.id))"""
        .replace("{table}", table)
        .replace("{key}", keyColumn)
        .replace("{now}", now);
  }

  /** No row of the key of {@code table}'s row before it in one of {@code states}. */
  private String noPrior(String table, String gone, String states) {
    String k = keyColumn;
    return "NOT EXISTS (SELECT 1 FROM "
        + table
        + " postbox_prior WHERE postbox_prior."
        + k
        + " = "
        + table
        + "."
        + k
        + " AND postbox_prior.state "
        + (states.contains(",") ? "IN (" + states + ")" : "= " + states)
        + " AND postbox_prior.id < "
        + table
        + ".id"
        + (gone == null ? "" : " AND postbox_prior.id NOT IN (" + gone + ")")
        + ")";
  }
}

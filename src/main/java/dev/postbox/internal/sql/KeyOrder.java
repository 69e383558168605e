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
   * whose id is in {@code gone} (a subquery, or null) count as finished already.
   */
  String headFilter(String table, String gone) {
    String k = keyColumn;
    return " AND ("
        + table
        + "."
        + k
        + " IS NULL OR NOT EXISTS (SELECT 1 FROM "
        + table
        + " postbox_prior WHERE postbox_prior."
        + k
        + " = "
        + table
        + "."
        + k
        + " AND postbox_prior.id < "
        + table
        + ".id AND postbox_prior.state IN ("
        + blockingStates()
        + ")"
        + (gone == null ? "" : " AND postbox_prior.id NOT IN (" + gone + ")")
        + "))";
  }
}

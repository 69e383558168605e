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
   * The claim condition that bounds the search for heads to the {@code scan} pending rows that come
   * due first, for a row of {@code table}: at most the last of them in (available_at, id) order, a
   * row comparison the claim index serves as a range bound (ties of available_at are common: rows
   * added in one transaction share it). Without it a claim looking for heads reads past every row
   * waiting behind a head already leased or retrying: with few keys and a deep backlog, every row
   * of the table per claim (10 keys, 50,000 rows on PostgreSQL: 260 msg/s). A claim that finds no
   * head in the window runs again without it, at most once a second ({@link FarSearch}), so a key
   * whose head sits behind more waiting rows than the window still gets its turn.
   */
  String window(String table, int scan) {
    return " AND ("
        + table
        + ".available_at, "
        + table
        + ".id) <= (SELECT claim_w.available_at, claim_w.id FROM (SELECT available_at, id FROM "
        + table
        + " WHERE state = 0 ORDER BY available_at, id LIMIT "
        + scan
        + ") claim_w ORDER BY claim_w.available_at DESC, claim_w.id DESC LIMIT 1)";
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

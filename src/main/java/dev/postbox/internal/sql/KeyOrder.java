package dev.postbox.internal.sql;

/**
 * How a queue table keeps per-key order: the rows of one key are claimed one run at a time, oldest
 * first, and a run starts only at the oldest pending row of its key (its head).
 *
 * <p>Rows known to wait behind their key's head are kept out of the search for heads in state 3,
 * {@value #WAITING}: a claim that takes a head sets the due rows of its key it does not take to
 * waiting, and a finish sets the row next in line after the rows it finishes pending again if it
 * was waiting (see {@link QueueSqlHome#promote}). Without that, every claim read past every row
 * waiting behind a head already leased: with few keys and a deep backlog, the whole table per claim
 * (10 keys, 50,000 rows on PostgreSQL: 260 msg/s). A row set pending too early costs nothing but a
 * row the search reads past; a waiting row nothing would set pending again is found by {@link
 * QueueSqlHome#wakeWaiting}, run when a dispatcher starts and every minute.
 *
 * @param keyColumn the column holding the key; rows with NULL there are not ordered
 * @param parkedBlocks whether a parked row keeps the later rows of its key from being claimed
 */
public record KeyOrder(String keyColumn, boolean parkedBlocks) {

  /** The state of a row that waits behind an older pending row of its key. */
  public static final int WAITING = 3;

  /** The states of a row that keep the later rows of its key waiting: pending, waiting, parked. */
  String blockingStates() {
    return parkedBlocks ? "0, 2, 3" : "0, 3";
  }

  /** {@link #blockingStates} but waiting: a row in one of them keeps the rows behind it waiting. */
  String aheadStates() {
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

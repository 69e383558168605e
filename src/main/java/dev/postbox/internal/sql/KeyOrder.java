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
   * The claim condition that a keyed row is the head of its key, for a row of {@code table} ({@link
   * Sql#HEAD}), checked as {@code home}'s database does; rows whose id is in {@code gone} (a
   * subquery, or null) count as finished already (not with {@link Home.HeadCheck#FIRST_PENDING}).
   */
  String headFilter(String table, String gone, Home home) {
    String noPriors =
        switch (home.headCheck) {
          case NO_PRIOR -> noPrior(table, gone, blockingStates());
          case NO_PRIOR_PER_STATE ->
              parkedBlocks
                  ? "(" + noPrior(table, gone, "0") + " AND " + noPrior(table, gone, "2") + ")"
                  : noPrior(table, gone, "0");
          case FIRST_PENDING -> {
            if (gone != null) {
              throw new IllegalArgumentException("the first pending row cannot skip finished ones");
            }
            String first =
                home.template(Sql.FIRST_PENDING)
                    .replace("{table}", table)
                    .replace("{key}", keyColumn);
            yield parkedBlocks ? "(" + first + " AND " + noPrior(table, null, "2") + ")" : first;
          }
        };
    return " AND "
        + Home.common(Sql.HEAD)
            .replace("{noPriors}", noPriors)
            .replace("{table}", table)
            .replace("{key}", keyColumn);
  }

  /**
   * The stats' count of pending rows of {@code table} whose time has come but that wait behind a
   * parked row of their key ({@link Sql#BEHIND_PARKED_COUNT}, its clock a placeholder); 0 unless
   * parked rows block.
   */
  String behindParkedCount(String table) {
    if (!parkedBlocks) {
      return "0";
    }
    return Home.common(Sql.BEHIND_PARKED_COUNT)
        .replace("{table}", table)
        .replace("{key}", keyColumn);
  }

  /** No row of the key of {@code table}'s row before it in one of {@code states}. */
  private String noPrior(String table, String gone, String states) {
    return Home.common(Sql.NO_PRIOR)
        .replace("{states}", states.contains(",") ? "IN (" + states + ")" : "= " + states)
        .replace("{gone}", gone == null ? "" : " AND postbox_prior.id NOT IN (" + gone + ")")
        .replace("{table}", table)
        .replace("{key}", keyColumn);
  }
}

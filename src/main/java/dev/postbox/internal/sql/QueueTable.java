package dev.postbox.internal.sql;

/**
 * How the engine sees one table: its name and what differs between the outbox and the job table.
 * All other columns (id, state, attempts, available_at, leased_by, last_error, created_at) are
 * common to both.
 *
 * @param name validated table name, used as written in SQL
 * @param columns the table's own columns
 * @param clauses what the table adds to the common statements
 * @param reader maps a claimed row
 * @param keyOrder how rows of one key keep their order; null if they need not
 * @param limits on a job table, its limits (its grouped and limited jobs wait for admission); null
 *     on the outbox
 */
public record QueueTable<T>(
    String name,
    Columns columns,
    Clauses clauses,
    RowReader<T> reader,
    KeyOrder keyOrder,
    Limits limits) {

  /**
   * The columns of a table that differ between the outbox and the job table.
   *
   * @param item table-specific columns the claim returns, comma-separated
   * @param ref the column parked rows are addressed by (event_id or id)
   * @param topic the topic or job-name column
   * @param checked table-specific columns whose absence {@code start()} reports
   * @param listedKey the row's key as the admin calls list it, an expression ({@code "NULL"} for
   *     none): the message key, the job's dedupe key
   */
  public record Columns(String item, String ref, String topic, String checked, String listedKey) {}

  /**
   * SQL a table adds to the common statements, each "" for none.
   *
   * @param doneSet extra SET assignments when a finished row is kept
   * @param claimFilter a condition, starting with " AND ", that a due row must also meet to be
   *     claimed
   * @param claimSet extra SET assignments of a claim
   * @param pending the condition a pending row meets ({@code state = 0}, or on the job table also
   *     the states of a job waiting for admission)
   * @param unleaseSet extra SET assignments when a lease ends without finishing the row (a failure,
   *     a snooze, a release)
   * @param replayedState the state a replayed row gets, an expression
   */
  public record Clauses(
      String doneSet,
      String claimFilter,
      String claimSet,
      String pending,
      String unleaseSet,
      String replayedState) {
    /** No clause added. */
    public static final Clauses NONE = new Clauses("", "", "", "state = 0", "", "0");

    /** These clauses, a due row claimed only where {@code condition} holds too. */
    Clauses narrowed(String condition) {
      return new Clauses(
          doneSet, claimFilter + condition, claimSet, pending, unleaseSet, replayedState);
    }
  }

  /** This table, claimed only where {@code condition} (starting with " AND ") holds too. */
  public QueueTable<T> claimedOnlyWhere(String condition) {
    return new QueueTable<>(name, columns, clauses.narrowed(condition), reader, keyOrder, limits);
  }
}

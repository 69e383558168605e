package dev.postbox.internal.sql;

/**
 * How the engine sees one table: its name and the few columns that differ between the outbox and
 * the job table. All other columns (id, state, attempts, available_at, leased_by, last_error,
 * created_at) are common to both.
 *
 * @param name validated table name, used as written in SQL
 * @param itemColumns table-specific columns the claim returns, comma-separated
 * @param refColumn the column parked rows are addressed by (event_id or id)
 * @param topicColumn the topic or job-name column
 * @param doneSet extra SET assignments when a finished row is kept ("" for none)
 * @param claimFilter a condition, starting with " AND ", that a due row must also meet to be
 *     claimed ("" for none)
 * @param claimSet extra SET assignments of a claim ("" for none)
 * @param checkedColumns table-specific columns whose absence {@code start()} reports
 * @param reader maps a claimed row
 * @param keyOrder how rows of one key keep their order; null if they need not
 * @param listedKey the row's key as the admin calls list it, an expression ({@code "NULL"} for
 *     none): the message key, the job's dedupe key
 */
public record QueueTable<T>(
    String name,
    String itemColumns,
    String refColumn,
    String topicColumn,
    String doneSet,
    String claimFilter,
    String claimSet,
    String checkedColumns,
    RowReader<T> reader,
    KeyOrder keyOrder,
    String listedKey) {

  /** A table whose rows are delivered in no particular order and have no key. */
  public QueueTable(
      String name,
      String itemColumns,
      String refColumn,
      String topicColumn,
      String doneSet,
      String claimFilter,
      String claimSet,
      String checkedColumns,
      RowReader<T> reader) {
    this(
        name,
        itemColumns,
        refColumn,
        topicColumn,
        doneSet,
        claimFilter,
        claimSet,
        checkedColumns,
        reader,
        null,
        "NULL");
  }

  /** This table, claimed only where {@code condition} (starting with " AND ") holds too. */
  public QueueTable<T> claimedOnlyWhere(String condition) {
    return new QueueTable<>(
        name,
        itemColumns,
        refColumn,
        topicColumn,
        doneSet,
        claimFilter + condition,
        claimSet,
        checkedColumns,
        reader,
        keyOrder,
        listedKey);
  }
}

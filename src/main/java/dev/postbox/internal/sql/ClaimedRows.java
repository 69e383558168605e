package dev.postbox.internal.sql;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Text;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Reads the rows a claim returned, each with its attempt and claim count after the claim. The
 * positions of the columns are looked up once per result set, on its first row.
 */
final class ClaimedRows<T> {
  private final ResultSet rs;
  private final Dialect dialect;
  private final RowReader.Rows<T> reader;
  // column positions; 0: the statement does not return the column
  private final int finished;
  private final int window;
  private final int id;
  private final int charged;
  private final int attempts;
  private final int claims;
  private final int due;
  private final int key;
  private final int failedBefore;

  private ClaimedRows(
      ResultSet rs,
      QueueSql sql,
      boolean leased,
      RowReader<T> reader,
      boolean withFinished,
      boolean withWindow)
      throws SQLException {
    this.rs = rs;
    this.dialect = sql.dialect;
    this.finished = withFinished ? rs.findColumn("finished$rows") : 0;
    this.window = withWindow ? rs.findColumn("window$rows") : 0;
    this.id = rs.findColumn("id");
    this.charged = sql.home.claimReturnsCharge ? rs.findColumn("charged") : 0;
    this.attempts = rs.findColumn("attempts");
    this.claims = rs.findColumn("claims");
    this.due = sql.home.claimReturnsDue ? rs.findColumn("due_before_claim") : 0;
    this.key = sql.keyColumn() == null ? 0 : rs.findColumn(sql.keyColumn());
    this.failedBefore = rs.findColumn("failed_before");
    this.reader = reader.of(rs, dialect, leased);
  }

  /**
   * Reads {@code rs} into {@code into}. {@code offset}: what the claim added to the counts that the
   * statement returns (1 where it returns them as they were before the UPDATE). With {@code
   * finish}, also reads the count of finished rows every row of a combined claim carries; with
   * {@code windowRows}, the size of the window of due rows a claim ordered by key searched for
   * heads, which every row of such a claim carries (a row with a NULL id only carries the counts).
   * On a table ordered by key, each row keeps its key; where the claim returns it, each row keeps
   * the {@code available_at} it had before the claim ({@code due_before_claim}), so that a
   * hand-back restores it; each row says whether an earlier attempt failed ({@code failed_before}).
   * {@code charged}: whether the claim counted the rows' attempts (not for the rows of runs behind
   * their heads), where the statement does not say so per row ({@code charged}).
   */
  static <T> void read(
      ResultSet rs,
      QueueSql sql,
      int offset,
      boolean charged,
      RowReader<T> reader,
      List<Claimed<T>> into,
      Finish finish,
      IntConsumer windowRows)
      throws SQLException {
    ClaimedRows<T> columns = null;
    while (rs.next()) {
      if (columns == null) {
        columns =
            new ClaimedRows<>(rs, sql, offset == 0, reader, finish != null, windowRows != null);
      }
      columns.readRow(offset, charged, into, finish, windowRows);
    }
  }

  private void readRow(
      int offset, boolean chargedAll, List<Claimed<T>> into, Finish finish, IntConsumer windowRows)
      throws SQLException {
    if (finish != null) {
      finish.written = rs.getInt(finished);
    }
    if (windowRows != null) {
      windowRows.accept(rs.getInt(window));
    }
    long rowId = rs.getLong(id);
    if ((finish != null || windowRows != null) && rs.wasNull()) {
      return;
    }
    boolean counted = charged != 0 ? rs.getInt(charged) == 1 : chargedAll;
    // returned as the claim left them (offset 0), an uncounted row's attempts lack this one
    int attempt = rs.getInt(attempts) + (offset == 0 && !counted ? 1 : offset);
    int claimCount = rs.getInt(claims) + offset;
    Claimed<T> row;
    try {
      row = reader.read(rowId, attempt, claimCount);
    } catch (RuntimeException e) {
      // e.g. headers written by something else: park this row, never block the others
      row = Claimed.unreadable(rowId, attempt, claimCount, Text.errorOf(e));
    }
    Instant dueBefore = due != 0 ? dialect.readInstant(rs, due) : null;
    String rowKey = key != 0 ? rs.getString(key) : null;
    into.add(row.as(rowKey, dueBefore, rs.getBoolean(failedBefore), counted));
  }
}

package dev.postbox.internal.sql;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Text;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.function.IntConsumer;

/** Reads the rows a claim returned, each with its attempt and claim count after the claim. */
final class ClaimedRows {
  private ClaimedRows() {}

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
    Dialect dialect = sql.dialect;
    String keyColumn = sql.keyColumn();
    while (rs.next()) {
      if (finish != null) {
        finish.written = rs.getInt("finished$rows");
      }
      if (windowRows != null) {
        windowRows.accept(rs.getInt("window$rows"));
      }
      long id = rs.getLong("id");
      if ((finish != null || windowRows != null) && rs.wasNull()) {
        continue;
      }
      boolean counted = sql.home.claimReturnsCharge ? rs.getInt("charged") == 1 : charged;
      // returned as the claim left them (offset 0), an uncounted row's attempts lack this one
      int attempt = rs.getInt("attempts") + (offset == 0 && !counted ? 1 : offset);
      int claims = rs.getInt("claims") + offset;
      Claimed<T> row;
      try {
        row = reader.read(rs, dialect, id, attempt, claims, offset == 0);
      } catch (RuntimeException e) {
        // e.g. headers written by something else: park this row, never block the others
        row = Claimed.unreadable(id, attempt, claims, Text.errorOf(e));
      }
      Instant due = sql.home.claimReturnsDue ? dialect.readInstant(rs, "due_before_claim") : null;
      String key = keyColumn == null ? null : rs.getString(keyColumn);
      into.add(row.as(key, due, rs.getBoolean("failed_before"), counted));
    }
  }
}

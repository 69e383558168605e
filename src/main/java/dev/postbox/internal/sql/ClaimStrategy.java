package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * How one database claims rows for one dispatcher: which of its statements run, in which
 * transaction, in how many round trips. Chosen by {@link QueueSql#claims} from the database's home;
 * one per lane serves its claim loop.
 */
public interface ClaimStrategy {

  /**
   * Claims up to {@code limit} due rows into {@code into}, oldest due first; or, for an outage
   * probe ({@code probe} not null), the newest that {@code probe} allows. First finishes {@code
   * finish} (null: nothing to finish) in the same statement or transaction and sets its {@code
   * written}. {@code searchAll}: on a table ordered by key whose window of due rows is full, look
   * beyond it at every key rather than the walk's next ones ({@link KeyWalk#everyHead}), so that
   * the report says whether anything was claimable. On a connection in auto-commit mode; leaves it
   * so. If it throws, nothing of either was written, unless the connection broke after a commit
   * (then the claimed rows are leased, unseen, until the lease ends) or a statement of a pipelined
   * batch failed after the begin (see {@link PipelinedClaim}).
   *
   * @return whether every claimable row was looked at, and the failure of a part that ran after an
   *     earlier part committed
   */
  <T> ClaimReport claim(
      Connection c,
      int limit,
      Probe probe,
      Finish finish,
      boolean searchAll,
      RowReader<T> reader,
      List<Claimed<T>> into)
      throws SQLException;
}

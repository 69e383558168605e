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
   * written}. On a connection in auto-commit mode; leaves it so. If it throws, nothing of either
   * was written, unless a statement of a pipelined batch failed after the begin (see {@link
   * PipelinedClaim}).
   */
  <T> void claim(
      Connection c,
      int limit,
      Probe probe,
      Finish finish,
      RowReader<T> reader,
      List<Claimed<T>> into)
      throws SQLException;
}

package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * How one database claims rows for one dispatcher: which of its statements run, in which
 * transaction, in how many round trips. Chosen by {@link QueueSql#claims} from the database's home;
 * one per lane serves its claim loop.
 */
public interface ClaimStrategy {

  /**
   * Runs {@code request}: claims its rows into its {@code into}, having first finished its {@code
   * finish}. On a connection in auto-commit mode; leaves it so. If it throws, nothing of either was
   * written, unless the connection broke after a commit (then the claimed rows are leased, unseen,
   * until the lease ends) or a statement of a pipelined batch failed after the begin (see {@link
   * PipelinedClaim}).
   *
   * @return whether every claimable row was looked at, and the failure of a part that ran after an
   *     earlier part committed
   */
  <T> ClaimReport claim(Connection c, ClaimRequest<T> request) throws SQLException;
}

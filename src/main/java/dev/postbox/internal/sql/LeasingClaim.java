package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * What every database's claim shares: one table's statements, the owner and length of the leases it
 * takes, whether finished rows are kept (state done) or deleted, and the walk that finds the heads
 * of keys beyond a claim's window on a table ordered by key. Immutable; one per lane.
 */
abstract class LeasingClaim implements ClaimStrategy {
  final QueueSql sql;
  final String owner;
  final long leaseMillis;
  final boolean keepDone;
  final KeyWalk walk;

  LeasingClaim(QueueSql sql, String owner, long leaseMillis, boolean keepDone) {
    this.sql = sql;
    this.owner = owner;
    this.leaseMillis = leaseMillis;
    this.keepDone = keepDone;
    this.walk = new KeyWalk(sql);
  }

  /**
   * Up to {@code room} heads of keys beyond the window: every head when {@code searchAll} (someone
   * awaits idle), else the walk's next ones.
   */
  KeyWalk.Found headsBeyond(Connection c, int room, boolean searchAll) throws SQLException {
    return searchAll ? walk.everyHead(c, room) : new KeyWalk.Found(walk.next(c, room), false);
  }

  /** Finishes {@code finish} (none if null) inside a claim's transaction; sets its written. */
  void finish(Connection c, Finish finish) throws SQLException {
    if (finish != null) {
      finish.written = sql.finish(c, owner, finish.claims, finish.ids, keepDone);
    }
  }

  /**
   * Binds the lease's owner and length as a claim statement's first two parameters; returns the
   * index of the next.
   */
  int bindLease(PreparedStatement ps) throws SQLException {
    ps.setString(1, owner);
    ps.setLong(2, leaseMillis);
    return 3;
  }
}

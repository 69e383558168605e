package dev.postbox.internal.sql;

import java.util.List;

/**
 * Delivered rows that a claim finishes in its own statement or transaction, instead of a separate
 * write: under a steady trickle of messages that halves the dispatcher's round trips and commits.
 * All of one claim count, since the fenced statement binds one.
 */
public class Finish {
  /** The claim count of every row: with this instance's id, the fence. */
  public final int claims;

  /** The rows' ids. */
  public final List<Long> ids;

  /**
   * Rows the fenced statement changed, once the claim ran; fewer than the ids if leases were lost.
   */
  public int written;

  /**
   * True once a try of the claim failed after it may have committed this finish (a retried claim
   * whose failed try was not {@link NothingWritten}): rows a later write finds gone were most
   * likely finished by that try, not taken over.
   */
  public boolean maybeWritten;

  public Finish(int claims, List<Long> ids) {
    this.claims = claims;
    this.ids = ids;
  }
}

package dev.postbox.internal.sql;

import java.sql.SQLException;

/**
 * What a claim found out besides the rows it took.
 *
 * @param searchedAll whether it looked at every row it could have claimed, so that taking none
 *     proves that no row was claimable (not so when a table ordered by key had more due rows than
 *     its window and the walk beyond it visited only some keys)
 * @param failedAfterCommit where a claim commits in parts (PostgreSQL's claim of heads found beyond
 *     the window, after its first statement): the error of a later part, whose rows may be leased
 *     unseen if it committed; the rows of the parts before it were taken. Null if none failed.
 */
public record ClaimReport(boolean searchedAll, SQLException failedAfterCommit) {
  static final ClaimReport ALL = new ClaimReport(true, null);

  static ClaimReport searched(boolean all) {
    return new ClaimReport(all, null);
  }
}

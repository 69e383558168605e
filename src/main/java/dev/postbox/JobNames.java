package dev.postbox;

import dev.postbox.internal.DialectChoice;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Limits;
import dev.postbox.internal.sql.QueueTable;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The job table seen by job name: the claim of a dispatcher limited to the names it has handlers
 * for, the pending jobs counted per name (and the paused names), and the names of jobs that wait
 * for a handler. Immutable and thread-safe.
 */
final class JobNames {
  // the oldest overdue jobs a look for unhandled names reads at most: bounded, and jobs nobody
  // claims grow old, so they are among the oldest
  static final int OVERDUE_LOOKED_AT = 10_000;

  private JobNames() {}

  /**
   * {@code table} claimed only for jobs named in {@code handled}: jobs of other names wait for a
   * dispatcher that has a handler for them (a rolling deploy adds job types one instance at a
   * time). The names are written into the claim as literals: they pass the job name rules (letters,
   * digits, '.', '_', '-'), and the claim's text is made once per dispatcher.
   */
  static QueueTable<JobContext> claimedBy(
      QueueTable<JobContext> table, Collection<String> handled) {
    return table.claimedOnlyWhere(
        Home.common(Sql.JOBS_CLAIMED_NAMES).replace("{names}", literals(handled)));
  }

  /** The per-name counts of pending jobs; see {@link Jobs#statsByName}. */
  static List<JobNameStats> stats(
      Connection c, DialectChoice dialects, String table, Limits limits) {
    try {
      Dialect d = dialects.of(c);
      try (PreparedStatement ps = c.prepareStatement(countsByName(d, table));
          ResultSet rs = ps.executeQuery()) {
        List<JobNameStats> stats = new ArrayList<>();
        while (rs.next()) {
          stats.add(
              new JobNameStats(
                  rs.getString("name"),
                  rs.getLong("pending"),
                  rs.getLong("due"),
                  rs.getLong("leased"),
                  d.readInstant(rs, "oldest_due"),
                  rs.getInt("paused") == 1,
                  limits.perName().getOrDefault(rs.getString("name"), 0)));
        }
        return stats;
      }
    } catch (SQLException e) {
      throw Jdbc.wrap("reading the job counts per name of " + table, e);
    }
  }

  /**
   * {@link #stats}' statement: per name, pending, due and leased jobs, the oldest due, whether it
   * is paused. No params.
   */
  static String countsByName(Dialect d, String table) {
    return JobFlow.sql(Sql.JOB_COUNTS_BY_NAME, d, JobFlow.table(table)).replace("{table}", table);
  }

  /**
   * Params: the wait (negative millis), twice. Among the {@link #OVERDUE_LOOKED_AT} jobs due
   * longest, pending or waiting for admission, due for longer than the wait, those of names not in
   * {@code handled}, per name: how many and since when.
   */
  static String overdueUnhandled(Dialect d, String table, Collection<String> handled) {
    return Home.text(Sql.JOBS_OVERDUE_UNHANDLED, d)
        .replace("{table}", table)
        .replace("{overdue}", Integer.toString(OVERDUE_LOOKED_AT))
        .replace("{names}", literals(handled));
  }

  /** {@code names} (valid job names) as SQL string literals, sorted, comma-separated. */
  private static String literals(Collection<String> names) {
    return names.stream().sorted().map(n -> "'" + n + "'").collect(Collectors.joining(", "));
  }
}

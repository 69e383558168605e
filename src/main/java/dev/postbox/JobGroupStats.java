package dev.postbox;

import dev.postbox.internal.DialectChoice;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The pending jobs of one group ({@link Job#group}) at one moment, as {@link Jobs#busiestGroups}
 * reads them. Immutable and thread-safe; a snapshot read on the caller's connection. Guide: {@code
 * docs/jobs.md#limits-and-groups}.
 *
 * @param group the group
 * @param pending its jobs not finished and not parked: waiting for admission, admitted, or leased
 * @param due pending jobs whose time has come and that no live lease holds
 * @param leased pending jobs held by a live lease (running, or claimed and about to run); at most
 *     {@link Jobs.Builder#limitPerGroup} while one is declared
 */
public record JobGroupStats(String group, long pending, long due, long leased) {

  /** The {@code n} busiest groups of {@code table}. */
  static List<JobGroupStats> busiest(Connection c, DialectChoice dialects, String table, int n) {
    try {
      String sql = Home.text(Sql.JOB_GROUPS, dialects.of(c)).replace("{table}", table);
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setInt(1, n);
        try (ResultSet rs = ps.executeQuery()) {
          List<JobGroupStats> groups = new ArrayList<>();
          while (rs.next()) {
            groups.add(
                new JobGroupStats(
                    rs.getString("grp"),
                    rs.getLong("pending"),
                    rs.getLong("due"),
                    rs.getLong("leased")));
          }
          return groups;
        }
      }
    } catch (SQLException e) {
      throw Jdbc.wrap("reading the busiest groups of " + table, e);
    }
  }
}

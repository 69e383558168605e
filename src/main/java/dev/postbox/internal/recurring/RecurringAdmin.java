package dev.postbox.internal.recurring;

import dev.postbox.StoredSchedule;
import dev.postbox.StoredSchedule.LastRun;
import dev.postbox.internal.DialectChoice;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Listing and removing stored schedules on the caller's connection, for {@link dev.postbox.Jobs}:
 * never commits. Stateless.
 */
public final class RecurringAdmin {
  private RecurringAdmin() {}

  public static List<StoredSchedule> list(Connection c, DialectChoice dialects, String jobs) {
    Require.notNull("connection", c);
    try {
      RecurringSql sql = new RecurringSql(dialects.of(c), jobs);
      List<StoredSchedule> schedules = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(sql.list);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          RecurringSql.Row r = sql.row(rs);
          schedules.add(
              new StoredSchedule(
                  r.name(),
                  r.schedule(),
                  r.payload(),
                  r.tick(),
                  r.lastTick(),
                  r.lastRun(),
                  lastRun(rs, r.lastRun())));
        }
      }
      return schedules;
    } catch (SQLException e) {
      throw Jdbc.wrap("listing the schedules of recurring jobs", e);
    }
  }

  private static LastRun lastRun(ResultSet rs, Long lastRunId) throws SQLException {
    int state = rs.getInt("state");
    if (lastRunId == null) {
      return LastRun.NONE;
    } else if (rs.wasNull()) {
      return LastRun.GONE;
    } else if (state == 1) {
      return LastRun.SUCCEEDED;
    } else if (state == 2) {
      return LastRun.PARKED;
    } else if (rs.getString("leased_by") != null) {
      return LastRun.RUNNING;
    }
    return rs.getInt("attempts") > 0 ? LastRun.RETRYING : LastRun.PENDING;
  }

  public static boolean remove(Connection c, DialectChoice dialects, String jobs, String name) {
    Require.notNull("connection", c);
    Rules.name("name", name);
    try (PreparedStatement ps = c.prepareStatement(new RecurringSql(dialects.of(c), jobs).remove)) {
      ps.setString(1, name);
      return ps.executeUpdate() > 0;
    } catch (SQLException e) {
      throw Jdbc.wrap("removing the schedule of recurring job '" + name + "'", e);
    }
  }

  public static boolean runNow(Connection c, DialectChoice dialects, String jobs, String name) {
    Require.notNull("connection", c);
    Rules.name("name", name);
    try (PreparedStatement ps = c.prepareStatement(new RecurringSql(dialects.of(c), jobs).runNow)) {
      ps.setString(1, name);
      return ps.executeUpdate() > 0;
    } catch (SQLException e) {
      throw Jdbc.wrap("making the next run of recurring job '" + name + "' due now", e);
    }
  }
}

package dev.postbox;

import dev.postbox.internal.DialectChoice;
import dev.postbox.internal.PostgresNotifications;
import dev.postbox.internal.ProducerOptions;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.TableWriter;
import dev.postbox.internal.dialect.Dialect;
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
 * The job queue's flow control table, {@code <jobs>_flow}: one row per paused job name, written by
 * {@link Jobs#pause} and deleted by {@link Jobs#resume}. A claim never takes a paused name's jobs
 * (the job table's claim condition reads this table). Runs on the caller's connection, in its
 * transaction; never commits. Immutable and thread-safe.
 */
final class JobFlow {
  /** The columns of the flow table a dispatcher's start checks. */
  static final String COLUMNS = "kind, name, paused_at, updated_at";

  private final String flow;
  private final boolean allowAutoCommit;
  private final String channel; // null unless a resume notifies the dispatchers (PostgreSQL)
  private final DialectChoice dialects;

  JobFlow(ProducerOptions options, DialectChoice dialects) {
    this.flow = table(options.table());
    this.allowAutoCommit = options.allowAutoCommit();
    this.channel = options.notifies() ? PostgresNotifications.channel(options.table()) : null;
    this.dialects = dialects;
  }

  /** The flow table of the job table {@code jobs}. */
  static String table(String jobs) {
    return jobs + "_flow";
  }

  /** {@code sql} on {@code d}'s database for the flow table {@code flow}; null if it has none. */
  static String sql(Sql sql, Dialect d, String flow) {
    String text = Home.text(sql, d);
    return text == null ? null : text.replace("{flow}", flow);
  }

  /** Pauses {@code name} unless it is paused, whose pause time stays. */
  void pause(Connection c, String name) {
    String doing = "pausing job name '" + checked(c, name, "pause") + "' in " + flow;
    try {
      Dialect d = dialects.of(c);
      try (PreparedStatement ps = c.prepareStatement(sql(Sql.JOB_PAUSE, d, flow))) {
        ps.setString(1, name);
        ps.executeUpdate();
      } catch (SQLException e) {
        // H2: a concurrent pause stored the row first; the duplicate failed only this statement
        if (d.database() == Database.POSTGRESQL || !d.isDuplicateKey(e)) {
          throw e;
        }
      }
    } catch (SQLException e) {
      throw Jdbc.wrap(doing, e);
    }
  }

  /** Resumes {@code name}; nothing if it is not paused. */
  void resume(Connection c, String name) {
    String doing = "resuming job name '" + checked(c, name, "resume") + "' in " + flow;
    try {
      Dialect d = dialects.of(c);
      int resumed;
      try (PreparedStatement ps = c.prepareStatement(sql(Sql.JOB_RESUME, d, flow))) {
        ps.setString(1, name);
        resumed = ps.executeUpdate();
      }
      String notify = channel == null ? null : Home.text(Sql.NOTIFY, d);
      if (resumed > 0 && notify != null) {
        try (PreparedStatement ps = c.prepareStatement(notify.replace("{channel}", channel))) {
          ps.execute();
        }
      }
    } catch (SQLException e) {
      throw Jdbc.wrap(doing, e);
    }
  }

  /** The paused names, sorted. */
  List<String> paused(Connection c) {
    Require.notNull("connection", c);
    try (PreparedStatement ps = c.prepareStatement(sql(Sql.JOBS_PAUSED, dialects.of(c), flow));
        ResultSet rs = ps.executeQuery()) {
      List<String> names = new ArrayList<>();
      while (rs.next()) {
        names.add(rs.getString(1));
      }
      // sorted here, not by the database's collation, so that every database lists them alike
      names.sort(null);
      return names;
    } catch (SQLException e) {
      throw Jdbc.wrap("listing the paused job names in " + flow, e);
    }
  }

  /** {@code name}, checked, on a connection that may write it; nothing is written otherwise. */
  private String checked(Connection c, String name, String call) {
    Require.notNull("connection", c);
    Rules.name("name", name);
    try {
      if (!allowAutoCommit && c.getAutoCommit()) {
        throw new PostboxException(
            TableWriter.autoCommitRefusal(
                "the " + call + " would not be atomic with your business data", call));
      }
    } catch (SQLException e) {
      throw Jdbc.wrap("reading the auto-commit mode", e);
    }
    return name;
  }
}

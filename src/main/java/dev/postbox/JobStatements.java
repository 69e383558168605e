package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * The job queue's statements about one job that has not finished: its id by dedupe key, and
 * cancelling it. The same SQL on every database. Run on the caller's connection and in its
 * transaction, if one is open; never commits. Immutable and thread-safe.
 */
final class JobStatements {
  final String byKey;
  final String cancelById;
  final String cancelByKey;

  JobStatements(String table) {
    this.byKey = Home.common(Sql.JOB_ID_BY_DEDUPE_KEY).replace("{table}", table);
    this.cancelById = Home.common(Sql.JOB_CANCEL).replace("{table}", table);
    this.cancelByKey = Home.common(Sql.JOB_CANCEL_BY_DEDUPE_KEY).replace("{table}", table);
  }

  /** The id of the job not started yet that holds {@code key}, else of the started one. */
  OptionalLong idOf(Connection c, String key) {
    Require.notNull("connection", c);
    Rules.eventId("dedupeKey", key);
    try (PreparedStatement ps = c.prepareStatement(byKey)) {
      ps.setString(1, key);
      ps.setString(2, key);
      OptionalLong id = OptionalLong.empty();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (id.isEmpty() || key.equals(rs.getString("dedupe_key"))) {
            id = OptionalLong.of(rs.getLong("id"));
          }
        }
      }
      return id;
    } catch (SQLException e) {
      throw Jdbc.wrap("looking up the job with a dedupe key", e);
    }
  }

  /** Deletes job {@code id} if it has not started; whether it did. */
  boolean cancel(Connection c, long id) {
    Require.notNull("connection", c);
    try (PreparedStatement ps = c.prepareStatement(cancelById)) {
      ps.setLong(1, id);
      return ps.executeUpdate() > 0;
    } catch (SQLException e) {
      throw Jdbc.wrap("cancelling job " + id, e);
    }
  }

  /** Deletes the jobs not started that hold {@code key}; whether there was one. */
  boolean cancelByDedupeKey(Connection c, String key) {
    Require.notNull("connection", c);
    Rules.eventId("dedupeKey", key);
    try (PreparedStatement ps = c.prepareStatement(cancelByKey)) {
      ps.setString(1, key);
      ps.setString(2, key);
      return ps.executeUpdate() > 0;
    } catch (SQLException e) {
      throw Jdbc.wrap("cancelling the job with a dedupe key", e);
    }
  }
}

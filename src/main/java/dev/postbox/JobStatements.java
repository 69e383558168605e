package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.jdbc.Jdbc;
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
  // not started: pending, waiting on its delay or a retry's backoff, or parked; a running job has
  // a lease (leased_by) until its outcome is written, and is never cancelled
  private static final String NOT_STARTED = " AND state IN (0, 2) AND leased_by IS NULL";

  final String byKey;
  final String cancelById;
  final String cancelByKey;

  JobStatements(String table) {
    // Params: the key, twice. A started job keeps its key in running_key, a job not started yet in
    // dedupe_key; there is at most one of each
    this.byKey = "SELECT id, dedupe_key FROM " + table + " WHERE dedupe_key = ? OR running_key = ?";
    // Params: the id
    this.cancelById = "DELETE FROM " + table + " WHERE id = ?" + NOT_STARTED;
    // Params: the key, twice
    this.cancelByKey =
        "DELETE FROM " + table + " WHERE (dedupe_key = ? OR running_key = ?)" + NOT_STARTED;
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

package dev.postbox.testing;

import dev.postbox.internal.dialect.Dialects;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;

/** Small SQL helpers for tests: single values, updates, transactions. */
public final class Sql {
  private Sql() {}

  public interface Work {
    void run(Connection c) throws Exception;
  }

  /** Runs {@code work} in a transaction and commits. */
  public static void commit(DataSource ds, Work work) {
    inTransaction(ds, work, true);
  }

  /** Runs {@code work} in a transaction and rolls it back. */
  public static void rollback(DataSource ds, Work work) {
    inTransaction(ds, work, false);
  }

  private static void inTransaction(DataSource ds, Work work, boolean commit) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        work.run(c);
        if (commit) {
          c.commit();
        } else {
          c.rollback();
        }
      } catch (Exception e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static long count(DataSource ds, String sql, Object... params) {
    return ((Number) value(ds, sql, params)).longValue();
  }

  public static Object value(DataSource ds, String sql, Object... params) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return rs.getObject(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  public static int update(DataSource ds, String sql, Object... params) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** The database's clock now. */
  public static Instant dbNow(DataSource ds, TestDatabase db) {
    var dialect = Dialects.of(db.database());
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT " + dialect.now() + " AS now_value");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return dialect.readInstant(rs, "now_value");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** SQL for "the database clock plus ? milliseconds" on {@code db}. */
  public static String nowPlusMillis(TestDatabase db) {
    return Dialects.of(db.database()).nowPlusMillis();
  }
}

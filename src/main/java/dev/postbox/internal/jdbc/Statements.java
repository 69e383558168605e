package dev.postbox.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Prepares the engine's claim and outcome statements, keeping them prepared across borrows of the
 * same pooled connection where the database runs in-process (SQLite). There, compiling the claim
 * and the batched DELETE anew for every batch was a tenth of the lane's CPU, and the driver keeps
 * no statement cache of its own (pgjdbc and MariaDB Connector/J do, and their round trip dwarfs a
 * prepare anyway, so elsewhere this simply prepares and closes).
 *
 * <p>Statements are prepared on the pool's physical connection ({@code unwrap}), since a pool
 * closes the statements of its proxy when the connection is handed back; they are forgotten when
 * that connection or the statement is closed, and a statement whose use failed is closed. A few per
 * connection at most, least recently used evicted.
 */
public final class Statements {
  private static final int PER_CONNECTION = 8;

  private final boolean reuse;
  private final ReentrantLock lock = new ReentrantLock();
  // identity, not weak: a statement refers to its connection, so a weak key would never clear;
  // entries of closed connections are dropped on every give instead (a pool keeps a few open)
  private final Map<Connection, Map<String, PreparedStatement>> cache =
      new IdentityHashMap<>(); // guarded by lock

  /** {@code reuse}: keep statements prepared across borrows (an in-process database). */
  public Statements(boolean reuse) {
    this.reuse = reuse;
  }

  /** Runs {@code use} with {@code sql} prepared on {@code c}, its parameters cleared. */
  public <T> T with(Connection c, String sql, SqlFunction<PreparedStatement, T> use)
      throws SQLException {
    Connection physical = reuse ? physical(c) : null;
    if (physical == null) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        return use.apply(ps);
      }
    }
    PreparedStatement ps = take(physical, sql);
    if (ps == null) {
      ps = physical.prepareStatement(sql);
    }
    T result;
    try {
      result = use.apply(ps);
      ps.clearParameters();
    } catch (Throwable e) {
      try {
        ps.close();
      } catch (SQLException closeFailure) {
        e.addSuppressed(closeFailure);
      }
      throw e;
    }
    give(physical, sql, ps);
    return result;
  }

  private static Connection physical(Connection c) {
    try {
      return c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
    } catch (SQLException | RuntimeException e) {
      return null; // a pool that cannot say: prepare every time
    }
  }

  /** Removes and returns the cached statement, so no other thread can use it meanwhile. */
  private PreparedStatement take(Connection physical, String sql) throws SQLException {
    PreparedStatement ps;
    lock.lock();
    try {
      Map<String, PreparedStatement> byText = cache.get(physical);
      ps = byText == null ? null : byText.remove(sql);
    } finally {
      lock.unlock();
    }
    if (ps != null && (ps.isClosed() || physical.isClosed())) {
      return null;
    }
    return ps;
  }

  private void give(Connection physical, String sql, PreparedStatement ps) throws SQLException {
    PreparedStatement evicted;
    lock.lock();
    try {
      cache.keySet().removeIf(Statements::closed);
      Map<String, PreparedStatement> byText = cache.computeIfAbsent(physical, k -> lru());
      evicted = byText.put(sql, ps);
      if (evicted == null && byText.size() > PER_CONNECTION) {
        String eldest = byText.keySet().iterator().next();
        evicted = byText.remove(eldest);
      }
    } finally {
      lock.unlock();
    }
    if (evicted != null && evicted != ps) {
      evicted.close();
    }
  }

  /** How many connections have statements kept; for tests. */
  public int connections() {
    lock.lock();
    try {
      return cache.size();
    } finally {
      lock.unlock();
    }
  }

  private static boolean closed(Connection c) {
    try {
      return c.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  private static Map<String, PreparedStatement> lru() {
    return new LinkedHashMap<>(16, 0.75f, true);
  }
}

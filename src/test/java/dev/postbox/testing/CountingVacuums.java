package dev.postbox.testing;

import static dev.postbox.testing.JdbcProxy.invoke;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * A DataSource that counts the VACUUM statements (and the ANALYZE a dispatcher runs on a table
 * whose statistics are missing) sent through {@code Statement.execute}: attempted, returned
 * normally, and finished (returned or threw). The first VACUUM can be made to throw a given failure
 * instead of running. Everything else passes straight through to the target.
 */
public final class CountingVacuums {
  private final DataSource target;
  private final AtomicReference<Throwable> firstFailure;
  private final AtomicInteger attempts = new AtomicInteger();
  private final AtomicInteger succeeded = new AtomicInteger();
  private final AtomicInteger finished = new AtomicInteger();

  /** Counts the VACUUMs sent to {@code target}; {@code firstFailure} (or null) fails the first. */
  public CountingVacuums(DataSource target, Throwable firstFailure) {
    this.target = target;
    this.firstFailure = new AtomicReference<>(firstFailure);
  }

  /** VACUUM statements sent so far (including the failed one). */
  public int attempts() {
    return attempts.get();
  }

  /** VACUUM statements that returned without an exception. */
  public int succeeded() {
    return succeeded.get();
  }

  /** VACUUM statements that returned or threw. */
  public int finished() {
    return finished.get();
  }

  /** Whether a VACUUM statement is running now. */
  public boolean inFlight() {
    return finished.get() < attempts.get();
  }

  public DataSource dataSource() {
    return JdbcProxy.wrappingConnections(target, this::connection);
  }

  private Connection connection(Connection real) {
    return JdbcProxy.of(
        Connection.class,
        (proxy, method, args) -> {
          Object result = invoke(real, method, args);
          return method.getName().equals("createStatement")
              ? statement((Statement) result)
              : result;
        });
  }

  /** A VACUUM, or the ANALYZE a dispatcher runs when a table's statistics are missing. */
  private static boolean maintenance(String sql) {
    String upper = sql.strip().toUpperCase(Locale.ROOT);
    return upper.startsWith("VACUUM") || upper.startsWith("ANALYZE");
  }

  private Statement statement(Statement real) {
    return JdbcProxy.of(
        Statement.class,
        (proxy, method, args) -> {
          if (!method.getName().equals("execute")
              || !(args[0] instanceof String sql)
              || !maintenance(sql)) {
            return invoke(real, method, args);
          }
          attempts.incrementAndGet();
          try {
            Throwable failure = firstFailure.getAndSet(null);
            if (failure != null) {
              throw failure;
            }
            Object result = invoke(real, method, args);
            succeeded.incrementAndGet();
            return result;
          } finally {
            finished.incrementAndGet();
          }
        });
  }
}

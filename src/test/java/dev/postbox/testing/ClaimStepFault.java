package dev.postbox.testing;

import static dev.postbox.testing.JdbcProxy.invoke;

import java.lang.reflect.InvocationHandler;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A DataSource that breaks the connection of one claim at one step: the {@code step}-th statement
 * execution (or commit) on a connection borrowed by a claim loop's thread ({@code …-claims…}), in
 * the first claim after {@link #arm} that gets that far. {@link Mode#BEFORE}: the step fails
 * without running; {@link Mode#AFTER}: it runs (a statement in auto-commit commits), then its
 * answer is lost. Either way with the database's own error for a broken connection ({@link
 * TestDatabase#brokenConnection}). Steps: {@code execute…} of a prepared or plain statement, {@code
 * executeBatch}, and {@code commit}. Records each claim's steps.
 */
public final class ClaimStepFault {
  /** Whether the broken step ran on the server before its answer was lost. */
  public enum Mode {
    BEFORE,
    AFTER
  }

  private final DataSource target;
  private final Function<String, SQLException> broken;
  private final int step;
  private final Mode mode;
  private final AtomicBoolean armed = new AtomicBoolean();
  private final AtomicBoolean injected = new AtomicBoolean();
  private final AtomicInteger ended = new AtomicInteger();
  private final List<List<String>> claims = Collections.synchronizedList(new ArrayList<>());

  /**
   * Breaks the claims that start after {@link #arm}; {@code step} counts from 1, and 0 injects
   * nothing and only records.
   */
  public ClaimStepFault(TestDatabase db, int step, Mode mode) {
    this.target = db.dataSource();
    this.broken = db::brokenConnection;
    this.step = step;
    this.mode = mode;
  }

  /** From now on, records claims and breaks the first that gets to the step. */
  public void arm() {
    armed.set(true);
  }

  /** How many claims (armed or not) have handed their connection back. */
  public int claimsEnded() {
    return ended.get();
  }

  /** Whether the fault was injected. */
  public boolean injected() {
    return injected.get();
  }

  /** The steps of each claim since {@link #arm} (a statement's first words, or "commit"). */
  public List<List<String>> claims() {
    synchronized (claims) {
      return List.copyOf(claims);
    }
  }

  public DataSource dataSource() {
    return JdbcProxy.wrappingConnections(
        target,
        c ->
            !Thread.currentThread().getName().contains("-claims")
                ? c
                : armed.get() ? claimConnection(c) : counted(c));
  }

  /** A claim connection before {@link #arm}: only its hand-back is counted. */
  private Connection counted(Connection real) {
    return JdbcProxy.connection(
        real,
        (method, args, result) -> {
          if (method.equals("close")) {
            ended.incrementAndGet();
          }
          return result;
        });
  }

  private Connection claimConnection(Connection real) {
    List<String> steps = Collections.synchronizedList(new ArrayList<>());
    claims.add(steps);
    InvocationHandler handler =
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("isWrapperFor")) {
            return false;
          }
          if (name.equals("commit")) {
            return step(steps, "commit", () -> invoke(real, method, args));
          }
          if (name.equals("close")) {
            ended.incrementAndGet();
          }
          Object result = invoke(real, method, args);
          if (result instanceof PreparedStatement ps) {
            return statement(PreparedStatement.class, ps, steps, (String) args[0]);
          }
          if (result instanceof Statement s) {
            return statement(Statement.class, s, steps, null);
          }
          return result;
        };
    return JdbcProxy.of(Connection.class, handler);
  }

  private <S extends Statement> S statement(Class<S> type, S real, List<String> steps, String sql) {
    List<String> batch = new ArrayList<>();
    return JdbcProxy.of(
        type,
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("addBatch") && args != null && args.length == 1) {
            batch.add((String) args[0]);
          }
          if (!name.startsWith("execute")) {
            return invoke(real, method, args);
          }
          String text =
              sql != null ? sql : args != null && args.length > 0 ? (String) args[0] : null;
          String what =
              text != null
                  ? words(text)
                  : "batch " + batch.stream().map(ClaimStepFault::words).toList();
          if (name.equals("executeBatch")) {
            batch.clear();
          }
          return step(steps, what, () -> invoke(real, method, args));
        });
  }

  private interface Call {
    Object run() throws Throwable;
  }

  private Object step(List<String> steps, String what, Call call) throws Throwable {
    steps.add(what);
    boolean fault = steps.size() == step && injected.compareAndSet(false, true);
    if (fault && mode == Mode.BEFORE) {
      throw broken.apply("connection broken before step " + step + " (injected)");
    }
    Object result = call.run();
    if (fault) {
      if (result instanceof ResultSet rs) {
        rs.close();
      }
      throw broken.apply("connection broken after step " + step + " (injected)");
    }
    return result;
  }

  private static String words(String sql) {
    String flat = sql.strip().replaceAll("\\s+", " ");
    return flat.length() <= 40 ? flat : flat.substring(0, 40);
  }
}

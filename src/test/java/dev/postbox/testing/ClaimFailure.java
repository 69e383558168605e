package dev.postbox.testing;

import static dev.postbox.testing.JdbcProxy.invoke;

import java.lang.reflect.InvocationHandler;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A DataSource that fails the first {@code n} claims, or the first {@code n} claims which carry
 * finished rows: on PostgreSQL the claim statement that holds the finishing DELETE, elsewhere the
 * claim statement prepared after a finishing DELETE (prepared, or batched as text) on the same
 * borrowed connection. {@link #carrying} fails such a claim before it runs, with an error that is
 * not transient, so the claim loop gives up on it at once ({@link #withoutState}: any claim, an
 * error without SQLState); {@link #carryingAfterCommit} and {@link #afterCommit} let the claim
 * commit and then report the connection lost (the database's own error, {@link
 * TestDatabase#brokenConnection}), as when the acknowledgement of the commit never arrives: the
 * claimed rows stay leased, unseen by the client, and the finished rows are gone. Reports as no
 * wrapper, so nothing reaches the real connection around it.
 */
public final class ClaimFailure {
  private final DataSource target;
  private final Function<String, SQLException> broken;
  private final AtomicInteger left;
  private final boolean carryingOnly;
  private final boolean afterCommit;
  private final AtomicInteger injected = new AtomicInteger();

  private ClaimFailure(TestDatabase db, int n, boolean carryingOnly, boolean afterCommit) {
    this.target = db.dataSource();
    this.broken = db::brokenConnection;
    this.left = new AtomicInteger(n);
    this.carryingOnly = carryingOnly;
    this.afterCommit = afterCommit;
  }

  /** Fails the first {@code n} claims that carry finished rows before they run. */
  public static ClaimFailure carrying(TestDatabase db, int n) {
    return new ClaimFailure(db, n, true, false);
  }

  /** Lets the first {@code n} claims that carry finished rows commit, then loses the connection. */
  public static ClaimFailure carryingAfterCommit(TestDatabase db, int n) {
    return new ClaimFailure(db, n, true, true);
  }

  /** Lets the first {@code n} claims commit, then loses the connection. */
  public static ClaimFailure afterCommit(TestDatabase db, int n) {
    return new ClaimFailure(db, n, false, true);
  }

  /**
   * Fails the first {@code n} claims before they run, with an error that has no SQLState (as every
   * error sqlite-jdbc raises, SQLITE_BUSY included).
   */
  public static ClaimFailure withoutState(TestDatabase db, int n) {
    return new ClaimFailure(db, n, false, false);
  }

  /** How many claims were failed so far. */
  public int injected() {
    return injected.get();
  }

  public DataSource dataSource() {
    return JdbcProxy.wrappingConnections(target, this::connection);
  }

  /** What one borrowed connection has seen: a finishing DELETE, a carrying claim to fail. */
  private static final class Seen {
    boolean finished;
    boolean loseCommit;
  }

  private Connection connection(Connection real) {
    Seen seen = new Seen();
    InvocationHandler handler =
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "isWrapperFor":
              return false;
            case "prepareStatement":
              String sql = (String) args[0];
              if (sql.startsWith("DELETE FROM postbox_outbox")) {
                seen.finished = true;
              }
              boolean claim = sql.matches("(?s).*ORDER BY (state, )?available_at, id LIMIT.*");
              boolean carrying = seen.finished || sql.contains("claim$finished");
              if (claim && (carrying || !carryingOnly) && left.getAndDecrement() > 0) {
                if (!afterCommit) {
                  injected.incrementAndGet();
                  throw carryingOnly
                      ? new SQLException(
                          "injected failure of a claim carrying finished rows", "XX000")
                      : new SQLException("injected failure of a claim, no SQLState");
                }
                seen.loseCommit = true;
              }
              break;
            case "commit":
              invoke(real, method, args);
              loseCommit(seen);
              return null;
            default:
              break;
          }
          Object result = invoke(real, method, args);
          return switch (method.getName()) {
            case "createStatement" -> statement((Statement) result, seen);
            // PostgreSQL's claim is one statement (its finish in it), which commits as it runs;
            // elsewhere a claim's transaction commits by commit() or a COMMIT in its text
            case "prepareStatement" ->
                seen.loseCommit && ((String) args[0]).contains("claim$lease")
                    ? autoCommitted((PreparedStatement) result, seen)
                    : result;
            default -> result;
          };
        };
    return JdbcProxy.of(Connection.class, handler);
  }

  /** Throws the lost connection if this connection's carrying claim is to lose its commit. */
  private void loseCommit(Seen seen) throws SQLException {
    if (seen.loseCommit) {
      seen.loseCommit = false;
      injected.incrementAndGet();
      throw broken.apply("connection lost after the claim committed (injected)");
    }
  }

  /** A claim in auto-commit: it commits as it runs; its result never arrives. */
  private PreparedStatement autoCommitted(PreparedStatement real, Seen seen) {
    return JdbcProxy.of(
        PreparedStatement.class,
        (proxy, method, args) -> {
          Object result = invoke(real, method, args);
          if (method.getName().startsWith("execute")) {
            if (result instanceof ResultSet rs) {
              rs.close();
            }
            loseCommit(seen);
          }
          return result;
        });
  }

  /**
   * Notes a finishing DELETE sent in a batch of text (MySQL's claim); loses the commit of a
   * carrying claim that commits by text (MySQL's batch, SQLite's COMMIT).
   */
  private Statement statement(Statement real, Seen seen) {
    boolean[] commitBatched = {false};
    return JdbcProxy.of(
        Statement.class,
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("addBatch")) {
            String sql = (String) args[0];
            seen.finished |= sql.startsWith("DELETE FROM postbox_outbox");
            commitBatched[0] |= sql.equals("COMMIT");
          }
          Object result = invoke(real, method, args);
          boolean commits =
              (name.equals("execute") && "COMMIT".equals(args[0]))
                  || (name.equals("executeBatch") && commitBatched[0]);
          if (name.equals("executeBatch")) {
            commitBatched[0] = false;
          }
          if (commits) {
            loseCommit(seen);
          }
          return result;
        });
  }
}

package dev.postbox.testing;

import static dev.postbox.testing.JdbcProxy.invoke;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * A DataSource whose first write that runs a statement matching {@code statement} commits on the
 * server and then reports a broken connection to the client (the database's own error, {@link
 * TestDatabase#brokenConnection}), as when the server's acknowledgement of a COMMIT never arrives:
 * a transaction at its {@code commit()}, a statement in auto-commit once it ran. The client's retry
 * of that write (its next matching statement) waits for {@link #beforeRetry} to open; {@link
 * #retried} opens once the retry has committed. Reports as no wrapper, so nothing reaches the real
 * connection around it.
 */
public final class LostAcknowledgement {
  private final DataSource target;
  private final Function<String, SQLException> broken;
  private final Predicate<String> statement;
  private final AtomicInteger state = new AtomicInteger(); // 0 armed, 1 injected, 2 retrying
  public final CountDownLatch beforeRetry = new CountDownLatch(1);
  public final CountDownLatch retried = new CountDownLatch(1);

  public LostAcknowledgement(TestDatabase db, Predicate<String> statement) {
    this.target = db.dataSource();
    this.broken = db::brokenConnection;
    this.statement = statement;
  }

  /** True once a commit was acknowledged as lost. */
  public boolean injected() {
    return state.get() > 0;
  }

  public DataSource dataSource() {
    return JdbcProxy.wrappingConnections(target, this::connection);
  }

  private Connection connection(Connection real) {
    boolean[] matched = {false};
    return JdbcProxy.of(
        Connection.class,
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "isWrapperFor":
              return false;
            case "prepareStatement":
              if (statement.test((String) args[0])) {
                if (state.compareAndSet(1, 2)) {
                  if (!beforeRetry.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the retry was never let through");
                  }
                }
                if (real.getAutoCommit()) {
                  return committing((PreparedStatement) invoke(real, method, args));
                }
                matched[0] = true;
              }
              break;
            case "commit":
              if (matched[0]) {
                matched[0] = false;
                invoke(real, method, args);
                committed();
                return null;
              }
              break;
            default:
              break;
          }
          return invoke(real, method, args);
        });
  }

  /** A matching statement in auto-commit: it commits as it runs. */
  private PreparedStatement committing(PreparedStatement real) {
    return JdbcProxy.of(
        PreparedStatement.class,
        (proxy, method, args) -> {
          Object result = invoke(real, method, args);
          if (method.getName().startsWith("execute")) {
            committed();
          }
          return result;
        });
  }

  /** A matching write committed: the first one's acknowledgement is lost. */
  private void committed() throws SQLException {
    if (state.compareAndSet(0, 1)) {
      throw broken.apply("connection lost after COMMIT (injected)");
    }
    if (state.get() == 2) {
      retried.countDown();
    }
  }
}

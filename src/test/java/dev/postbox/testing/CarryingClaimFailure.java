package dev.postbox.testing;

import static dev.postbox.testing.JdbcProxy.invoke;

import java.lang.reflect.InvocationHandler;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A DataSource that fails the first {@code n} claims which carry finished rows: on PostgreSQL the
 * claim statement that holds the finishing DELETE, elsewhere the claim statement prepared after a
 * finishing DELETE (prepared, or batched as text) on the same borrowed connection. The failure is
 * not transient, so the claim loop gives up on it at once. Reports as no wrapper, so nothing
 * reaches the real connection around it.
 */
public final class CarryingClaimFailure {
  private final DataSource target;
  private final AtomicInteger left;
  private final AtomicInteger injected = new AtomicInteger();

  public CarryingClaimFailure(DataSource target, int n) {
    this.target = target;
    this.left = new AtomicInteger(n);
  }

  /** How many claims were failed so far. */
  public int injected() {
    return injected.get();
  }

  public DataSource dataSource() {
    return JdbcProxy.wrappingConnections(target, this::connection);
  }

  private Connection connection(Connection real) {
    boolean[] finished = {false};
    InvocationHandler handler =
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "isWrapperFor":
              return false;
            case "prepareStatement":
              String sql = (String) args[0];
              if (sql.startsWith("DELETE FROM postbox_outbox")) {
                finished[0] = true;
              }
              boolean claim = sql.matches("(?s).*ORDER BY (state, )?available_at, id LIMIT.*");
              if (claim
                  && (finished[0] || sql.contains("claim$finished"))
                  && left.getAndDecrement() > 0) {
                injected.incrementAndGet();
                throw new SQLException(
                    "injected failure of a claim carrying finished rows", "XX000");
              }
              break;
            default:
              break;
          }
          Object result = invoke(real, method, args);
          return method.getName().equals("createStatement")
              ? statement((Statement) result, finished)
              : result;
        };
    return JdbcProxy.of(Connection.class, handler);
  }

  /** Notes a finishing DELETE sent in a batch of text (MySQL's claim). */
  private Statement statement(Statement real, boolean[] finished) {
    return JdbcProxy.of(
        Statement.class,
        (proxy, method, args) -> {
          if (method.getName().equals("addBatch")
              && ((String) args[0]).startsWith("DELETE FROM postbox_outbox")) {
            finished[0] = true;
          }
          return invoke(real, method, args);
        });
  }
}

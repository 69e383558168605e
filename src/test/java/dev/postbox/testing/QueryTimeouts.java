package dev.postbox.testing;

import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** Records the statements run on a DataSource without a query timeout. Thread-safe. */
public final class QueryTimeouts {
  private final List<String> missing = new CopyOnWriteArrayList<>();

  /** {@code target}, watched: each statement run on it without a query timeout is recorded. */
  public DataSource watching(DataSource target) {
    return JdbcProxy.wrappingConnections(
        target,
        real ->
            JdbcProxy.connection(
                real,
                (method, args, result) ->
                    result instanceof Statement s ? watched(s, method, args) : result));
  }

  /** {@return the text of each statement run without a query timeout, in order} */
  public List<String> missing() {
    return List.copyOf(missing);
  }

  private Statement watched(Statement real, String method, Object[] args) {
    Class<? extends Statement> type =
        method.equals("prepareCall")
            ? CallableStatement.class
            : method.equals("prepareStatement") ? PreparedStatement.class : Statement.class;
    String prepared = args != null && args.length > 0 && args[0] instanceof String s ? s : null;
    AtomicInteger timeout = new AtomicInteger();
    return JdbcProxy.of(
        type,
        (proxy, m, a) -> {
          if (m.getName().equals("setQueryTimeout")) {
            timeout.set((Integer) a[0]);
          } else if (m.getName().startsWith("execute") && timeout.get() == 0) {
            missing.add(prepared != null ? prepared : String.valueOf(a[0]));
          }
          return JdbcProxy.invoke(real, m, a);
        });
  }
}

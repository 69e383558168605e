package dev.postbox.testing;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A DataSource whose claims can be cut off: after {@link #cut}, a connection asked for on a claim
 * loop's thread ({@code <instance>-<table>-claims…}) is refused, while the writer, the lease
 * renewal and every other thread still get theirs. With the rows' leases taken over by hand, a
 * dispatcher is then as good as a crashed process: it claims nothing, and whatever it writes is
 * fenced off.
 */
public final class ClaimCutoff {
  private final DataSource target;
  private final AtomicBoolean cut = new AtomicBoolean();

  public ClaimCutoff(DataSource target) {
    this.target = target;
  }

  /** From now on, refuses connections to claim loops. */
  public void cut() {
    cut.set(true);
  }

  public DataSource dataSource() {
    return JdbcProxy.of(
        DataSource.class,
        (proxy, method, args) -> {
          if (method.getName().equals("getConnection")
              && cut.get()
              && Thread.currentThread().getName().contains("-claims")) {
            throw new SQLException("claims cut off (injected)", "08001");
          }
          return JdbcProxy.invoke(target, method, args);
        });
  }
}

package dev.postbox.testing;

import static dev.postbox.testing.JdbcProxy.invoke;

import java.sql.Connection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A DataSource that stalls an extra claim loop's first claim (thread {@code …-claims-2}) after it
 * committed, when it closes its connection: its rows are leased, yet not back in the engine. The
 * main loop ({@code …-claims}) claims once, then its next claim waits until that stall begins, so
 * the extra claim gets rows; the stall ends after {@code releaseAfter} more claims of the main
 * loop, or on {@link #release}. Each wait gives up after 60 seconds, so a test that expects the
 * stall checks {@link #stalled}.
 */
public final class StalledExtraClaim {
  private static final long WAIT_SECONDS = 60;

  private final DataSource target;
  private final int releaseAfter;
  private final AtomicInteger mainClaims = new AtomicInteger();
  private final AtomicInteger mainClaimsAtStall = new AtomicInteger(-1);
  private final AtomicBoolean first = new AtomicBoolean(true);
  private final CountDownLatch stall = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);

  public StalledExtraClaim(DataSource target, int releaseAfter) {
    this.target = target;
    this.releaseAfter = releaseAfter;
  }

  /**
   * True once the extra loop's first claim stalled: its connection closed, the claim not returned.
   */
  public boolean stalled() {
    return stall.getCount() == 0;
  }

  /** Ends the stall. */
  public void release() {
    released.countDown();
  }

  public DataSource dataSource() {
    return JdbcProxy.of(
        DataSource.class,
        (proxy, method, args) -> {
          if (method.getName().equals("getConnection") && onThread("-claims")) {
            mainClaimStarts();
          }
          Object result = invoke(target, method, args);
          return result instanceof Connection c && onThread("-claims-2")
              ? extraConnection(c)
              : result;
        });
  }

  private void mainClaimStarts() throws InterruptedException {
    int n = mainClaims.incrementAndGet();
    if (n == 2) {
      stall.await(WAIT_SECONDS, TimeUnit.SECONDS);
      mainClaimsAtStall.set(n);
    }
    int at = mainClaimsAtStall.get();
    if (at > 0 && n - at >= releaseAfter) {
      release();
    }
  }

  private Connection extraConnection(Connection real) {
    return JdbcProxy.connection(
        real,
        (method, args, result) -> {
          if (method.equals("close") && first.compareAndSet(true, false)) {
            stall.countDown();
            released.await(WAIT_SECONDS, TimeUnit.SECONDS);
          }
          return result;
        });
  }

  private static boolean onThread(String suffix) {
    return Thread.currentThread().getName().endsWith(suffix);
  }
}

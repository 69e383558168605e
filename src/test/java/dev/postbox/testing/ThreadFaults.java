package dev.postbox.testing;

import static dev.postbox.testing.JdbcProxy.invoke;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * A DataSource that throws {@code fault} from {@code getConnection} on threads whose name ends with
 * {@code threadSuffix} (say {@code -claims} or {@code -completions}), the first {@code times} times
 * or, for a negative {@code times}, every time: how an {@link Error} reaches an engine loop.
 */
public final class ThreadFaults {
  private final DataSource target;
  private final String threadSuffix;
  private final Supplier<? extends Throwable> fault;
  private final boolean forever;
  private final AtomicInteger left;
  private final AtomicInteger thrown = new AtomicInteger();

  public ThreadFaults(
      DataSource target, String threadSuffix, int times, Supplier<? extends Throwable> fault) {
    this.target = target;
    this.threadSuffix = threadSuffix;
    this.fault = fault;
    this.forever = times < 0;
    this.left = new AtomicInteger(times);
  }

  /** How many faults were thrown so far. */
  public int thrown() {
    return thrown.get();
  }

  public DataSource dataSource() {
    return JdbcProxy.of(
        DataSource.class,
        (proxy, method, args) -> {
          if (method.getName().equals("getConnection")
              && Thread.currentThread().getName().endsWith(threadSuffix)
              && (forever || left.getAndDecrement() > 0)) {
            thrown.incrementAndGet();
            throw fault.get();
          }
          return invoke(target, method, args);
        });
  }
}

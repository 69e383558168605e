package dev.postbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A lease renewal that comes late (here: the pool hands out no connection for most of a lease) is
 * logged at WARN with what to check, so an operator sees the risk before rows are taken over.
 */
class LateLeaseRenewalTest extends DatabaseTest {
  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }

  @Test
  void aRenewalMoreThanHalfALeaseLateIsLoggedAtWarn() throws Exception {
    Outbox outbox = Outbox.builder().build();
    Sql.commit(ds, c -> outbox.add(c, Message.of("t", "{}").eventId("slow")));
    CountDownLatch delivering = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    var pool = new PausablePool(ds);
    PrintStream original = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    System.setErr(new PrintStream(log, true, UTF_8));
    try {
      started(
          Dispatcher.builder(pool.dataSource())
              .outbox(
                  outbox,
                  envelope -> {
                    delivering.countDown();
                    release.await();
                  })
              .instanceId("late-renewal")
              .lease(Duration.ofSeconds(1))
              .pollInterval(Duration.ofMillis(50)));
      Await.until(Duration.ofSeconds(30), "delivery to start", () -> delivering.getCount() == 0);
      pool.paused = true;
      Thread.sleep(800); // the stimulus: a pool exhausted for 0.8 of a 1 s lease
      pool.paused = false;
      Await.until(
          Duration.ofSeconds(30),
          "the late-renewal warning",
          () -> log.toString(UTF_8).contains("more than half the lease (1000 ms)"));
      release.countDown();
      Await.until(
          Duration.ofSeconds(30),
          "the outcome",
          () -> Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox") == 0);
    } finally {
      release.countDown();
      System.setErr(original);
    }
    String warning =
        log.toString(UTF_8)
            .lines()
            .filter(l -> l.contains("more than half the lease"))
            .findFirst()
            .orElseThrow();
    assertTrue(warning.contains("WARN") && warning.contains("late-renewal"), warning);
  }

  /** A DataSource whose getConnection waits while {@link #paused}. */
  private static final class PausablePool {
    private final DataSource delegate;
    volatile boolean paused;

    PausablePool(DataSource delegate) {
      this.delegate = delegate;
    }

    DataSource dataSource() {
      return (DataSource)
          Proxy.newProxyInstance(
              DataSource.class.getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                if (method.getName().equals("getConnection")) {
                  while (paused) {
                    TimeUnit.MILLISECONDS.sleep(5);
                  }
                }
                try {
                  return method.invoke(delegate, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }
}

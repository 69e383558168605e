package dev.postbox.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A virtual thread that commits {@code perRound} one-order transactions ({@code order-<i>}) every
 * {@code pause} until stopped, waking the current {@link #dispatcher} after each round: a steady
 * stream of business transactions before, during and after an outage. {@link #stop()} fails the
 * test if a commit failed.
 */
public final class SteadyWriter {
  private final AtomicBoolean writing = new AtomicBoolean(true);
  private final AtomicInteger committed = new AtomicInteger();
  private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
  private final Thread thread;

  /** The dispatcher to wake after each round, or null; a test may swap in a replacement. */
  public volatile Dispatcher dispatcher;

  public SteadyWriter(
      DataSource ds, OrderLedger orders, int perRound, Duration pause, Dispatcher dispatcher) {
    this.dispatcher = dispatcher;
    this.thread =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    while (writing.get()) {
                      int from = committed.get();
                      Sql.commit(
                          ds,
                          c -> {
                            for (int i = from; i < from + perRound; i++) {
                              orders.add(c, "order-" + i);
                            }
                          });
                      committed.addAndGet(perRound);
                      Dispatcher d = this.dispatcher;
                      if (d != null) {
                        d.wakeUp();
                      }
                      Thread.sleep(pause); // the pace of the business, not a wait for anything
                    }
                  } catch (Throwable e) {
                    errors.add(e);
                  }
                });
  }

  public int committed() {
    return committed.get();
  }

  public void stop() throws InterruptedException {
    writing.set(false);
    thread.join();
    assertTrue(errors.isEmpty(), () -> "writer failed: " + errors);
  }
}

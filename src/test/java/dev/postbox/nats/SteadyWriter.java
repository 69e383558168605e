package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import dev.postbox.testing.Sql;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A virtual thread that commits {@code perRound} one-order transactions every {@code pause} until
 * stopped, waking the current dispatcher after each round; {@link #stop()} fails the test if a
 * commit failed.
 */
final class SteadyWriter {
  private final AtomicBoolean writing = new AtomicBoolean(true);
  private final AtomicInteger committed = new AtomicInteger();
  private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  volatile Dispatcher dispatcher;

  SteadyWriter(DataSource ds, Ledger orders, int perRound, Duration pause, Dispatcher dispatcher) {
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
                              orders.addOrder(c, "order-" + i, "order-" + i);
                            }
                          });
                      committed.addAndGet(perRound);
                      Dispatcher d = this.dispatcher;
                      if (d != null) {
                        d.wakeUp();
                      }
                      Thread.sleep(pause);
                    }
                  } catch (Throwable e) {
                    errors.add(e);
                  }
                });
  }

  int committed() {
    return committed.get();
  }

  void stop() throws InterruptedException {
    writing.set(false);
    thread.join();
    assertTrue(errors.isEmpty(), () -> "writer failed: " + errors);
  }
}

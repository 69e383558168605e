package dev.postbox.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.sql.DataSource;

/**
 * Ten threads, each owning every tenth key, commit event {@code <key>-<seq>} for each of their
 * keys, wake the current {@link #dispatcher} and pause, for seq 0 to perKey - 1: a key's commit
 * order is its sequence. {@link #join()} fails the test if a commit failed.
 */
public final class KeyWriters {
  private final List<Thread> threads = new ArrayList<>();
  private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();

  /** The dispatcher to wake after each round, or null; a test may swap in a replacement. */
  public volatile Dispatcher dispatcher;

  public KeyWriters(
      DataSource ds,
      OrderLedger orders,
      int keys,
      int perKey,
      Duration pause,
      Dispatcher dispatcher) {
    this.dispatcher = dispatcher;
    for (int w = 0; w < 10; w++) {
      int writer = w;
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      for (int seq = 0; seq < perKey; seq++) {
                        for (int k = writer; k < keys; k += 10) {
                          String key = "key" + k;
                          String id = key + "-" + seq;
                          Sql.commit(ds, c -> orders.add(c, id, key));
                        }
                        Dispatcher d = this.dispatcher;
                        if (d != null) {
                          d.wakeUp();
                        }
                        if (pause.isPositive()) {
                          Thread.sleep(pause); // the pace of the business, not a wait
                        }
                      }
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }));
    }
  }

  public void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(errors.isEmpty(), () -> "writers failed: " + errors);
  }
}

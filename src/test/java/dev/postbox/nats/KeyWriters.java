package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Dispatcher;
import dev.postbox.testing.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.sql.DataSource;

/**
 * Ten threads, each owning every tenth key, commit event {@code <key>-<seq>} for each of their
 * keys, then pause, for seq 0 to perKey - 1: a key's commit order is its sequence.
 */
final class KeyWriters {
  private final List<Thread> threads = new ArrayList<>();
  private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
  volatile Dispatcher dispatcher;

  KeyWriters(DataSource ds, Ledger orders, int keys, int perKey, Duration pause) {
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
                          Sql.commit(ds, c -> orders.addOrder(c, id, key));
                        }
                        Dispatcher d = dispatcher;
                        if (d != null) {
                          d.wakeUp();
                        }
                        Thread.sleep(pause);
                      }
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }));
    }
  }

  void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(errors.isEmpty(), () -> "writers failed: " + errors);
  }
}

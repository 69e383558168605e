package dev.postbox.bench;

import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import dev.postbox.bench.PerformanceHarness.Wake;
import java.sql.Connection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import org.postgresql.PGConnection;

/**
 * One W2 contestant while it delivers, and what its producers call. Postbox: the harness's
 * dispatcher over {@code Outbox.builder()} (ordered by key), {@code outbox.add} and {@code
 * dispatcher.wakeUp()} after commit. The floor: {@link Floor}'s loop on its own thread, a
 * hand-written INSERT prepared in each transaction and a condition the loop waits on (with NOTIFY:
 * {@code pg_notify} in the INSERT and a hand-written LISTEN loop instead).
 */
final class W2Contestant {
  private static final String FLOOR_CHANNEL = "bench_floor";

  private final AtomicBoolean stop = new AtomicBoolean();
  private final FloorWake condition = new FloorWake();
  private final AtomicReference<Throwable> floorFailure = new AtomicReference<>();
  private Dispatcher dispatcher;
  private Thread floor;
  private Thread listener;
  private Producers.Enqueuer enqueuer;
  private IntConsumer afterCommit;

  private W2Contestant() {}

  /**
   * Starts Postbox's dispatcher or the floor's loop on {@code db}, counting deliveries into {@code
   * d} and finished rows into {@code p}. {@link #stop()} it, also when this throws no more.
   */
  static W2Contestant start(
      PerformanceHarness h,
      BenchDb db,
      boolean postbox,
      Wake wake,
      Deliveries d,
      Progress p,
      AtomicLong retries)
      throws InterruptedException {
    W2Contestant c = new W2Contestant();
    try {
      boolean signal = wake == Wake.IN_PROCESS;
      if (postbox) {
        c.startPostbox(h, db, wake == Wake.NOTIFY, signal, d, p);
      } else {
        c.startFloor(h, db, wake == Wake.NOTIFY, signal, d, p, retries);
      }
      return c;
    } catch (RuntimeException | InterruptedException e) {
      c.stop();
      throw e;
    }
  }

  private void startPostbox(
      PerformanceHarness h, BenchDb db, boolean notify, boolean signal, Deliveries d, Progress p) {
    // -Dbench.w2Unordered=true: Postbox unordered, to tell ordering's part of the latency
    Outbox outbox =
        Outbox.builder()
            .notifyDispatchers(notify)
            .orderedByKey(!Boolean.getBoolean("bench.w2Unordered"))
            .build();
    dispatcher = h.dispatcher(db.dataSource(), p).outbox(outbox, h.countingTransport(d)).build();
    dispatcher.start();
    Dispatcher started = dispatcher;
    enqueuer = c -> index -> ProduceDeliver.add(outbox, c, index);
    afterCommit =
        index -> {
          d.committed(index);
          if (signal) {
            started.wakeUp();
          }
        };
  }

  private void startFloor(
      PerformanceHarness h,
      BenchDb db,
      boolean notify,
      boolean signal,
      Deliveries d,
      Progress p,
      AtomicLong retries)
      throws InterruptedException {
    floor =
        Thread.ofPlatform()
            .name("bench-floor")
            .start(
                () -> {
                  try {
                    Floor.run(
                        db,
                        Floor.Kind.OUTBOX,
                        h.config.batchSize(),
                        Floor.Order.DUE,
                        row -> d.delivered(row.index()),
                        p,
                        condition,
                        h.config.pollInterval(),
                        stop::get,
                        retries);
                  } catch (Throwable e) {
                    floorFailure.set(e);
                  }
                });
    if (notify) {
      enqueuer = Producers.handWrittenNotifying(FLOOR_CHANNEL);
      listener = listen(db);
    } else {
      enqueuer = Producers.handWrittenPerTransaction(db);
    }
    afterCommit =
        index -> {
          d.committed(index);
          if (signal) {
            condition.signal();
          }
        };
  }

  Producers.Enqueuer enqueuer() {
    return enqueuer;
  }

  IntConsumer afterCommit() {
    return afterCommit;
  }

  /**
   * Closes the dispatcher or stops the floor's threads; returns the floor loop's failure, or null.
   */
  Throwable stop() {
    if (dispatcher != null) {
      dispatcher.close();
    }
    stop.set(true);
    condition.signal();
    for (Thread t : new Thread[] {floor, listener}) {
      try {
        if (t != null) {
          t.join();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return floorFailure.get();
  }

  /**
   * The floor's LISTEN, by hand: one pooled connection in {@code LISTEN}, pgjdbc's {@code
   * getNotifications} with a 1 s timeout, one signal per batch of notifications.
   */
  private Thread listen(BenchDb db) throws InterruptedException {
    CountDownLatch listening = new CountDownLatch(1);
    Thread t =
        Thread.ofPlatform()
            .name("bench-floor-listen")
            .start(
                () -> {
                  try (Connection c = db.dataSource().getConnection()) {
                    c.setAutoCommit(true);
                    try (var s = c.createStatement()) {
                      s.execute("LISTEN " + FLOOR_CHANNEL);
                    }
                    listening.countDown();
                    PGConnection pg = c.unwrap(PGConnection.class);
                    while (!stop.get()) {
                      var notifications = pg.getNotifications(1000);
                      if (notifications != null && notifications.length > 0) {
                        condition.signal();
                      }
                    }
                  } catch (Throwable e) {
                    floorFailure.set(e);
                    listening.countDown();
                  }
                });
    listening.await();
    return t;
  }
}

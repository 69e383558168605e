package dev.postbox.reliability;

import dev.postbox.Job;
import dev.postbox.Jobs;
import dev.postbox.Message;
import dev.postbox.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes as an application would: in one transaction, a ledger row (event id, key, sequence) and
 * the outbox message or job, then commits, or rolls back, or holds the transaction open before
 * committing. Each thread draws from its own seeded random, so a run is repeatable up to timing.
 * Failed transactions (e.g. while the database restarts) are counted and not retried: the ledger in
 * the database is the truth.
 */
final class Producer {
  /** What to write and how. */
  record Plan(
      String prefix,
      int total,
      int threads,
      double ratePerSecond,
      double rollbackRate,
      double holdRate,
      Duration hold,
      double poisonRate,
      boolean jobs,
      Duration maxDelay,
      int padBytes,
      long seed,
      int keys,
      boolean poisonSharesKeys) {
    Plan {
      if (threads < 1 || total < 0 || keys < 1) {
        throw new IllegalArgumentException(
            "threads " + threads + ", total " + total + ", keys " + keys);
      }
    }

    static Plan of(String prefix, int total) {
      return new Plan(
          prefix,
          total,
          4,
          0,
          0,
          0,
          Duration.ZERO,
          0,
          false,
          Duration.ZERO,
          64,
          prefix.hashCode(),
          16,
          false);
    }

    Plan threads(int n) {
      return new Plan(
          prefix,
          total,
          n,
          ratePerSecond,
          rollbackRate,
          holdRate,
          hold,
          poisonRate,
          jobs,
          maxDelay,
          padBytes,
          seed,
          keys,
          poisonSharesKeys);
    }

    Plan rate(double perSecond) {
      return new Plan(
          prefix,
          total,
          threads,
          perSecond,
          rollbackRate,
          holdRate,
          hold,
          poisonRate,
          jobs,
          maxDelay,
          padBytes,
          seed,
          keys,
          poisonSharesKeys);
    }

    Plan rollbacks(double rate) {
      return new Plan(
          prefix,
          total,
          threads,
          ratePerSecond,
          rate,
          holdRate,
          hold,
          poisonRate,
          jobs,
          maxDelay,
          padBytes,
          seed,
          keys,
          poisonSharesKeys);
    }

    Plan holds(double rate, Duration d) {
      return new Plan(
          prefix,
          total,
          threads,
          ratePerSecond,
          rollbackRate,
          rate,
          d,
          poisonRate,
          jobs,
          maxDelay,
          padBytes,
          seed,
          keys,
          poisonSharesKeys);
    }

    Plan poison(double rate) {
      return new Plan(
          prefix,
          total,
          threads,
          ratePerSecond,
          rollbackRate,
          holdRate,
          hold,
          rate,
          jobs,
          maxDelay,
          padBytes,
          seed,
          keys,
          poisonSharesKeys);
    }

    Plan jobs(Duration maxDelay) {
      return new Plan(
          prefix,
          total,
          threads,
          ratePerSecond,
          rollbackRate,
          holdRate,
          hold,
          poisonRate,
          true,
          maxDelay,
          padBytes,
          seed,
          keys,
          poisonSharesKeys);
    }

    /** Messages spread over {@code n} keys ({@code <prefix>-k0} …; 16 unless set). */
    Plan keys(int n) {
      return new Plan(
          prefix,
          total,
          threads,
          ratePerSecond,
          rollbackRate,
          holdRate,
          hold,
          poisonRate,
          jobs,
          maxDelay,
          padBytes,
          seed,
          n,
          poisonSharesKeys);
    }

    /**
     * Poison messages take the key their sequence number gives them, so a parked one sits in front
     * of healthy messages of its key; by default each poison message has a key of its own.
     */
    Plan poisonInSharedKeys() {
      return new Plan(
          prefix,
          total,
          threads,
          ratePerSecond,
          rollbackRate,
          holdRate,
          hold,
          poisonRate,
          jobs,
          maxDelay,
          padBytes,
          seed,
          keys,
          true);
    }
  }

  private final RelDb db;
  private final Plan plan;
  private final Outbox outbox = Outbox.builder().build();
  private final Jobs jobs = Jobs.builder().build();
  final AtomicLong committed = new AtomicLong();
  final AtomicLong rolledBack = new AtomicLong();
  final AtomicLong held = new AtomicLong();
  final AtomicLong poisoned = new AtomicLong();
  final AtomicLong errors = new AtomicLong();
  private final AtomicLong next = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private volatile Throwable firstError;

  /**
   * A committed outbox message: its key and when its commit call started and returned (this JVM's
   * clock). A message whose commit returned before another's started committed first.
   */
  record Commit(String key, long startNanos, long endNanos) {}

  /** The committed outbox messages by event id. */
  final Map<String, Commit> commits = new ConcurrentHashMap<>();

  Producer(RelDb db, Plan plan) {
    this.db = db;
    this.plan = plan;
  }

  Producer start() {
    startNanos = System.nanoTime();
    for (int t = 0; t < plan.threads(); t++) {
      int thread = t;
      threads.add(
          Thread.ofPlatform()
              .name(plan.prefix() + "-producer-" + t)
              .start(() -> run(new SplittableRandom(plan.seed() * 31 + thread))));
    }
    return this;
  }

  /** Runs the whole plan on the calling thread's behalf and waits for it. */
  Producer runToEnd() {
    start();
    join();
    return this;
  }

  void join() {
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  void stop() {
    stop.set(true);
    join();
  }

  boolean done() {
    return threads.stream().noneMatch(Thread::isAlive);
  }

  Throwable firstError() {
    return firstError;
  }

  private volatile long startNanos;

  private void run(SplittableRandom random) {
    while (!stop.get()) {
      long n = next.getAndIncrement();
      if (n >= plan.total()) {
        return;
      }
      if (plan.ratePerSecond() > 0) {
        long dueNanos = startNanos + (long) (n * 1e9 / plan.ratePerSecond());
        long wait = dueNanos - System.nanoTime();
        if (wait > 0) {
          Child.sleep(wait / 1_000_000);
        }
      }
      write(n, random);
    }
  }

  private void write(long n, SplittableRandom random) {
    String eventId = plan.prefix() + "-" + n;
    // every (1 / rate)-th row, not a random draw: a short run must never end up with no poison
    long every = plan.poisonRate() > 0 ? Math.max(1, Math.round(1 / plan.poisonRate())) : 0;
    boolean poison = every > 0 && n % every == every / 2;
    // a parked message blocks the later messages of its key (the outbox's default): unless the
    // plan says otherwise, poison gets a key of its own, so healthy messages are not held behind it
    String key =
        poison && !plan.poisonSharesKeys()
            ? "poison-" + n
            : plan.prefix() + "-k" + (n % plan.keys());
    boolean rollback = random.nextDouble() < plan.rollbackRate();
    boolean hold = random.nextDouble() < plan.holdRate();
    long delayMillis =
        plan.jobs() && !plan.maxDelay().isZero()
            ? random.nextLong(plan.maxDelay().toMillis() / 2, plan.maxDelay().toMillis() + 1)
            : 0;
    String payload =
        "{\"id\":\""
            + eventId
            + "\",\"poison\":"
            + poison
            + ",\"pad\":\""
            + "x".repeat(plan.padBytes())
            + "\"}";
    try (Connection c = db.ds().getConnection()) {
      c.setAutoCommit(false);
      try {
        // the ledger row first: its due_at is then never later than the job's available_at
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO rel_ledger (event_id, msg_key, seq, poison, due_at, created_at)"
                    + " VALUES (?, ?, ?, ?, "
                    + db.nowPlusSql()
                    + ", "
                    + db.nowSql()
                    + ")")) {
          ps.setString(1, eventId);
          ps.setString(2, key);
          ps.setLong(3, n);
          ps.setInt(4, poison ? 1 : 0);
          ps.setLong(5, delayMillis);
          ps.executeUpdate();
        }
        if (plan.jobs()) {
          Job job = Job.of("rel", payload).dedupeKey(eventId);
          if (delayMillis > 0) {
            job = job.delay(Duration.ofMillis(delayMillis));
          }
          jobs.enqueue(c, job);
        } else {
          outbox.add(c, Message.of("rel.event", payload).eventId(eventId).key(key));
        }
        if (hold) {
          held.incrementAndGet();
          Child.sleep(plan.hold().toMillis());
        }
        if (rollback) {
          c.rollback();
          rolledBack.incrementAndGet();
        } else {
          long commitStart = System.nanoTime();
          c.commit();
          if (!plan.jobs()) {
            commits.put(eventId, new Commit(key, commitStart, System.nanoTime()));
          }
          committed.incrementAndGet();
          if (poison) {
            poisoned.incrementAndGet();
          }
        }
      } catch (Exception e) {
        try {
          c.rollback();
        } catch (Exception ignored) {
          // the connection is gone; the server rolled back
        }
        throw e;
      } finally {
        try {
          c.setAutoCommit(true);
        } catch (Exception ignored) {
          // broken connection; the pool evicts it
        }
      }
    } catch (Exception e) {
      errors.incrementAndGet();
      if (firstError == null) {
        firstError = e;
      }
      Child.sleep(20);
    }
  }
}

package dev.postbox.internal;

import dev.postbox.Delivery;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes delivery outcomes on one thread, as many per round trip as have queued up meanwhile: all
 * successes of a batch in one DELETE (or UPDATE), failures one fenced UPDATE each. Under load
 * batches grow by themselves; when idle a single outcome is written at once.
 *
 * <p>While the claim loop is busy, successes wait up to {@value #DEFER_MILLIS} ms for the next
 * claim to take them ({@link #takeForClaim}) and record them in its own statement: one round trip
 * and one commit instead of two. Whatever no claim took by then, this thread writes.
 */
final class Completions {
  private static final Logger log = LoggerFactory.getLogger(Completions.class);
  private static final int MAX_BATCH = 1000;
  private static final Outcome STOP = new Outcome(null, null, null, null, 0);

  private final DataSource dataSource;
  private final QueueSql sql;
  private final LaneSettings settings;
  private final boolean keepDone;
  private final Consumer<List<Outcome>> onWritten;
  private final Consumer<Throwable> onGiveUp; // an Error on every try for a whole lease
  private final WriteGate gate;
  private final Statements statements;
  private final Vacuum vacuum;
  private final boolean lingers;
  private final IntSupplier running;
  private static final int LINGER_MILLIS = 2;
  private static final int DEFER_MILLIS = 5;
  // lock-free: sixteen delivery threads adding at once must not queue up behind each other, and an
  // outcome wakes the writer only if it is parked waiting for one (idle), not while it lingers
  private final ConcurrentLinkedQueue<Outcome> queue = new ConcurrentLinkedQueue<>();
  // successes apart, so that a claim can take them; failures and hand-backs are this thread's alone
  private final ConcurrentLinkedQueue<Outcome> successes = new ConcurrentLinkedQueue<>();
  private final BooleanSupplier claimingSoon;
  private volatile boolean idle;
  private volatile boolean lingering;
  private volatile boolean deferring;
  private final Thread thread;
  private volatile long giveUpAtNanos = Long.MAX_VALUE;

  Completions(
      DataSource dataSource,
      QueueSql sql,
      LaneSettings settings,
      WriteGate gate,
      IntSupplier running,
      BooleanSupplier claimingSoon,
      Consumer<List<Outcome>> onWritten,
      Consumer<Throwable> onGiveUp) {
    this.onGiveUp = onGiveUp;
    this.claimingSoon = claimingSoon;
    this.gate = gate;
    this.vacuum =
        new Vacuum(
            dataSource,
            sql.dialect.vacuum(sql.table),
            settings.vacuumEvery(),
            settings.instanceId());
    this.lingers = sql.dialect.singleWriter();
    this.statements = new Statements(sql.dialect.singleWriter());
    this.running = running;
    this.dataSource = dataSource;
    this.sql = sql;
    this.settings = settings;
    this.keepDone = !settings.retention().isZero();
    this.onWritten = onWritten;
    this.thread =
        LoopThreads.builder(sql.dialect)
            .name(settings.instanceId() + "-" + sql.table + "-completions")
            .unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  void add(Outcome outcome) {
    boolean success = outcome.kind() == Outcome.Kind.SUCCEEDED;
    (success ? successes : queue).add(outcome);
    if (idle || (deferring && !success)) {
      LockSupport.unpark(thread);
    }
  }

  /** Queues the outcomes of one batch delivery; wakes the writer at most once. */
  void addAll(Outcome[] outcomes) {
    boolean failure = false;
    for (Outcome o : outcomes) {
      boolean success = o.kind() == Outcome.Kind.SUCCEEDED;
      (success ? successes : queue).add(o);
      failure |= !success;
    }
    if (idle || (deferring && failure)) {
      LockSupport.unpark(thread);
    }
  }

  /**
   * Tells a lingering writer that no delivery is running any more: nothing is worth waiting for.
   */
  void nudge() {
    if (lingering) {
      LockSupport.unpark(thread);
    }
  }

  /** Tells a deferring writer that no claim is coming soon: write the successes now. */
  void claimsPaused() {
    if (deferring) {
      LockSupport.unpark(thread);
    }
  }

  /**
   * Takes queued successes for the next claim to record: those of the first one's claim count (the
   * others go to this thread), or null if none are queued. Hand the result to {@link #carried} once
   * the claim committed, or to {@link #giveBack} if it failed.
   */
  Carried takeForClaim() {
    Outcome first = successes.poll();
    if (first == null) {
      return null;
    }
    int claims = first.row().claims();
    List<Outcome> taken = new ArrayList<>();
    taken.add(first);
    Outcome next;
    boolean other = false;
    while (taken.size() < MAX_BATCH && (next = successes.poll()) != null) {
      if (next.row().claims() == claims) {
        taken.add(next);
      } else {
        queue.add(next);
        other = true;
      }
    }
    if (other && idle) {
      LockSupport.unpark(thread);
    }
    return new Carried(claims, taken);
  }

  /** What a committed claim recorded: as if this thread had written it. */
  void carried(Carried c) {
    List<Runnable> afterCommit = new ArrayList<>(1);
    reportLost(recorded(c.outcomes, c.written, afterCommit), false, afterCommit);
    onWritten.accept(c.outcomes);
    afterCommit.forEach(Listeners::call);
  }

  /** Successes a failed claim did not record: this thread writes them (with its own retries). */
  void giveBack(Carried c) {
    queue.addAll(c.outcomes);
    LockSupport.unpark(thread);
  }

  /** Writes what is queued (retrying a failing database until {@code deadline}), then stops. */
  /**
   * Writes what is queued (retrying a failing database until {@code patience} has passed), then
   * stops; waits for that through interrupts. Returns true if the caller was interrupted.
   */
  boolean close(Duration patience) {
    giveUpAtNanos = System.nanoTime() + patience.toNanos();
    add(STOP);
    return Joins.join(thread, patience.plusSeconds(5));
  }

  private void run() {
    LoopGuard guard = new LoopGuard(thread.getName(), settings.lease());
    List<Outcome> batch = new ArrayList<>();
    boolean stop = false;
    while (true) {
      try {
        if (batch.isEmpty()) {
          Outcome first = take();
          if (first == null) {
            return; // interrupted
          }
          batch.add(first);
          drain(batch, MAX_BATCH);
          if (lingers) {
            linger(batch);
          }
        }
        if (batch.remove(STOP)) {
          stop = true;
          drain(batch, Integer.MAX_VALUE);
        }
        writeWithRetry(batch); // keeps going through SQL failures; an Error reaches the guard
        batch.clear();
        guard.succeeded();
        if (stop) {
          return;
        }
      } catch (Throwable e) { // the same batch is written again after the pause
        if (System.nanoTime() >= giveUpAtNanos) {
          log.warn(
              "{} - could not record {} outcomes before shutdown; their leases will expire and"
                  + " they will be delivered again",
              thread.getName(),
              batch.size(),
              e);
          return;
        }
        if (!guard.survived(e)) {
          onGiveUp.accept(e);
          return;
        }
      }
    }
  }

  /**
   * The next outcome, parking until one is added; null if interrupted. Successes alone wait once
   * for up to {@value #DEFER_MILLIS} ms while a claim is coming, which may take them.
   */
  private Outcome take() {
    boolean deferred = false;
    while (true) {
      Outcome next = queue.poll();
      if (next != null) {
        return next;
      }
      if (!successes.isEmpty()) {
        if (!deferred && claimingSoon.getAsBoolean()) {
          deferred = true;
          deferring = true;
          try {
            if (queue.isEmpty()) {
              LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(DEFER_MILLIS));
            }
          } finally {
            deferring = false;
          }
        } else if ((next = successes.poll()) != null) {
          return next;
        }
      } else {
        // announce the park before the last look, so an add either is seen here or unparks us
        idle = true;
        try {
          if (queue.isEmpty() && successes.isEmpty()) {
            LockSupport.park(this);
          }
        } finally {
          idle = false;
        }
        deferred = false;
      }
      if (Thread.currentThread().isInterrupted()) {
        return null;
      }
    }
  }

  private void drain(List<Outcome> batch, int max) {
    Outcome next;
    while (batch.size() < max && (next = queue.poll()) != null) {
      batch.add(next);
    }
    while (batch.size() < max && (next = successes.poll()) != null) {
      batch.add(next);
    }
  }

  /**
   * On a single-writer database every write is a commit with its own fsync and its own turn at the
   * file lock: while deliveries are still running, wait up to {@value #LINGER_MILLIS} ms for their
   * outcomes so that one statement records many.
   */
  private void linger(List<Outcome> batch) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
    // parked for the whole linger, not woken per outcome: the last delivery to end nudges us
    lingering = true;
    try {
      while (batch.size() < MAX_BATCH && running.getAsInt() > 0 && !batch.contains(STOP)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        LockSupport.parkNanos(this, left);
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        drain(batch, MAX_BATCH);
      }
    } finally {
      lingering = false;
      drain(batch, MAX_BATCH);
    }
  }

  /**
   * Writes {@code batch} in one transaction, retrying while the database is unreachable or busy. A
   * batch that fails for a reason retrying cannot cure is written outcome by outcome, and an
   * outcome that still fails is dropped with an ERROR: its lease expires and the row is delivered
   * again, rather than one bad outcome stopping every later one.
   */
  private void writeWithRetry(List<Outcome> batch) {
    if (batch.isEmpty()) {
      return; // only the stop signal
    }
    long pauseMillis = 50;
    // listener calls and parking logs wait for the commit: a rolled-back try reports nothing
    List<Runnable> afterCommit = new ArrayList<>();
    boolean mayHaveCommitted = false;
    while (true) {
      boolean retry = mayHaveCommitted;
      try {
        afterCommit.clear();
        gate.through(
            () ->
                oneStatement(batch)
                    ? Jdbc.autoCommit(dataSource, c -> write(c, batch, retry, afterCommit))
                    : Jdbc.inTransaction(dataSource, c -> write(c, batch, retry, afterCommit)));
      } catch (SQLException | RuntimeException e) {
        mayHaveCommitted |= connectionLost(e);
        if (System.nanoTime() >= giveUpAtNanos) {
          log.warn(
              "{} - could not record {} outcomes on {} before shutdown; their leases will expire and"
                  + " they will be delivered again",
              settings.instanceId(),
              batch.size(),
              sql.table,
              e);
          return;
        }
        if (permanent(e)) {
          if (batch.size() == 1) {
            Outcome o = batch.get(0);
            log.error(
                "{} - cannot record outcome {} of id={} ref={} on {}; its lease will expire and it"
                    + " will be delivered again",
                settings.instanceId(),
                o.kind(),
                o.row().id(),
                o.row().ref(),
                sql.table,
                e);
            onWritten.accept(batch);
          } else {
            for (Outcome o : batch) {
              writeWithRetry(List.of(o));
            }
          }
          return;
        }
        if (e instanceof SQLException s && sql.dialect.isTransient(s)) {
          Listeners.call(() -> settings.listener().retried(sql.table, "outcome", s));
        } else {
          log.warn(
              "{} - recording {} outcomes on {} failed, retrying in {} ms: {}",
              settings.instanceId(),
              batch.size(),
              sql.table,
              pauseMillis,
              e.toString());
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
        pauseMillis = Math.min(pauseMillis * 2, 5_000);
        continue;
      }
      // outside the try: a hook that throws must not make a committed batch look failed
      onWritten.accept(batch);
      afterCommit.forEach(Listeners::call);
      return;
    }
  }

  /** True if {@code batch} is written by one statement, which needs no transaction around it. */
  private static boolean oneStatement(List<Outcome> batch) {
    int claims = batch.get(0).row().claims();
    for (Outcome o : batch) {
      if (batch.size() > 1 && (o.kind() != Outcome.Kind.SUCCEEDED || o.row().claims() != claims)) {
        return false;
      }
    }
    return true;
  }

  /**
   * True if {@code e} says the connection broke, perhaps after the server committed: a retry then
   * finds rows the earlier try already wrote.
   */
  private static boolean connectionLost(Exception e) {
    if (!(e instanceof SQLException s)) {
      return false;
    }
    String state = s.getSQLState();
    return state == null
        || state.startsWith("08")
        || state.startsWith("57")
        || s instanceof SQLRecoverableException;
  }

  /** True if retrying the same write cannot help: a bad value, a constraint, a bug. */
  private boolean permanent(Exception e) {
    if (!(e instanceof SQLException s)) {
      return true;
    }
    return !connectionLost(s)
        && !sql.dialect.isTransient(s)
        && !(s instanceof SQLTransientException);
  }

  /**
   * Writes {@code batch} on {@code c}. {@code retry}: an earlier try of this batch failed in a way
   * that may have committed it (the connection broke), so rows that no longer match may have been
   * written by that try rather than taken over: not reported as lost leases.
   */
  private Void write(Connection c, List<Outcome> batch, boolean retry, List<Runnable> afterCommit)
      throws SQLException {
    if (batch.size() > 1 && oneStatement(batch)) { // the usual case: skip the grouping
      int lost = writeSuccesses(c, batch.get(0).row().claims(), batch, afterCommit);
      reportLost(lost, retry, afterCommit);
      return null;
    }
    Map<Integer, List<Outcome>> successesByClaims = new TreeMap<>();
    List<Outcome> others = new ArrayList<>();
    for (Outcome o : batch) {
      if (o.kind() == Outcome.Kind.SUCCEEDED) {
        successesByClaims.computeIfAbsent(o.row().claims(), a -> new ArrayList<>()).add(o);
      } else {
        others.add(o);
      }
    }
    int lost = 0;
    for (Map.Entry<Integer, List<Outcome>> group : successesByClaims.entrySet()) {
      lost += writeSuccesses(c, group.getKey(), group.getValue(), afterCommit);
    }
    for (Outcome o : others) {
      lost += writeOther(c, o, afterCommit) ? 0 : 1;
    }
    reportLost(lost, retry, afterCommit);
    return null;
  }

  private void reportLost(int lost, boolean retry, List<Runnable> afterCommit) {
    if (lost > 0 && retry) {
      int lostCount = lost;
      afterCommit.add(
          () ->
              log.info(
                  "{} - {} outcomes on {} matched no row when written again after a broken"
                      + " connection: the earlier try had committed them, or their leases moved on",
                  settings.instanceId(),
                  lostCount,
                  sql.table));
    } else if (lost > 0) {
      int lostCount = lost;
      afterCommit.add(
          () -> {
            log.warn(
                "{} - {} outcomes on {} not recorded: lease lost (another instance took the rows"
                    + " over)",
                settings.instanceId(),
                lostCount,
                sql.table);
            Listeners.call(() -> settings.listener().leaseLost(sql.table, lostCount));
          });
    }
  }

  private int writeSuccesses(
      Connection c, int claims, List<Outcome> rows, List<Runnable> afterCommit)
      throws SQLException {
    String statement = sql.finish(rows.size(), keepDone);
    int written =
        statements.with(
            c,
            statement,
            ps -> {
              int p = 1;
              ps.setString(p++, settings.instanceId());
              ps.setInt(p++, claims);
              for (Outcome o : rows) {
                ps.setLong(p++, o.row().id());
              }
              return ps.executeUpdate();
            });
    return recorded(rows, written, afterCommit);
  }

  /**
   * Counts {@code written} finished rows of {@code rows} toward the next vacuum and queues their
   * listener calls; returns how many were not written (lease lost).
   */
  private int recorded(List<Outcome> rows, int written, List<Runnable> afterCommit) {
    vacuum.finished(written);
    if (settings.listener() != Listeners.NONE) { // no per-message garbage for the default
      afterCommit.add(
          () -> {
            for (Outcome o : rows) {
              Listeners.call(
                  () ->
                      settings
                          .listener()
                          .delivered(delivery(o.row()), Duration.ofNanos(o.elapsedNanos())));
            }
          });
    }
    return rows.size() - written;
  }

  private boolean writeOther(Connection c, Outcome o, List<Runnable> afterCommit)
      throws SQLException {
    Claimed<?> row = o.row();
    if (o.kind() == Outcome.Kind.RELEASED) {
      try (PreparedStatement ps = c.prepareStatement(sql.release)) {
        ps.setLong(1, row.id());
        ps.setString(2, settings.instanceId());
        ps.setInt(3, row.claims());
        return ps.executeUpdate() == 1;
      }
    }
    boolean park = o.kind() == Outcome.Kind.PARKED;
    boolean refund = o.kind() == Outcome.Kind.REFUNDED;
    String error = Text.errorOf(o.error());
    try (PreparedStatement ps = c.prepareStatement(sql.fail)) {
      ps.setInt(1, park ? RowState.PARKED : RowState.PENDING);
      ps.setInt(2, refund ? row.attempt() - 1 : row.attempt());
      ps.setLong(3, park ? 0 : o.delay().toMillis());
      ps.setString(4, error);
      ps.setLong(5, row.id());
      ps.setString(6, settings.instanceId());
      ps.setInt(7, row.claims());
      if (ps.executeUpdate() != 1) {
        return false;
      }
    }
    Delivery d = delivery(row);
    if (park) {
      afterCommit.add(
          () -> {
            log.warn(
                "{} - parked {} id={} ref={} topic={} after {} attempts: {}",
                settings.instanceId(),
                sql.table,
                row.id(),
                row.ref(),
                row.topic(),
                row.attempt(),
                error);
            Listeners.call(() -> settings.listener().parked(d, error));
          });
    } else {
      afterCommit.add(
          () -> Listeners.call(() -> settings.listener().failed(d, o.error(), o.delay())));
    }
    return true;
  }

  private Delivery delivery(Claimed<?> row) {
    return new Delivery(sql.table, row.id(), row.ref(), row.topic(), row.attempt());
  }
}

package dev.postbox.internal.lane;

import dev.postbox.internal.Joins;
import dev.postbox.internal.Listeners;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.QueueSql;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes delivery outcomes on one thread ({@code <instance>-<table>-completions}), as many per
 * round trip as have queued up meanwhile ({@link OutcomeBatch}): under load batches grow by
 * themselves; when idle a single outcome is written at once. Retries while the database is
 * unreachable or busy; survives Errors ({@link LoopGuard}).
 */
final class OutcomeWriter {
  private static final Logger log = LoggerFactory.getLogger(OutcomeWriter.class);

  private final DataSource dataSource;
  private final QueueSql sql;
  private final LaneSettings settings;
  private final WriteGate gate;
  private final OutcomeBatch batches;
  private final LaneReport report;
  private final Consumer<List<Outcome>> onWritten;
  private final Consumer<Throwable> onGiveUp; // an Error on every try for a whole lease
  private final boolean lingers;
  private final Thread thread;
  private final OutcomeQueue queue;
  private volatile long giveUpAtNanos = Long.MAX_VALUE;

  /**
   * @param onWritten hears of every outcome written (or dropped): the lane stops renewing its row
   * @param onGiveUp hears of an Error that lasted a whole lease: the writer has stopped
   */
  OutcomeWriter(
      LaneTable lane,
      LaneSettings settings,
      IntSupplier running,
      BooleanSupplier claimingSoon,
      Consumer<List<Outcome>> onWritten,
      Consumer<Throwable> onGiveUp) {
    this.dataSource = lane.dataSource();
    this.sql = lane.sql();
    this.settings = settings;
    this.gate = lane.gate();
    this.onWritten = onWritten;
    this.onGiveUp = onGiveUp;
    this.lingers = sql.dialect().oneWriter();
    this.report = lane.report();
    this.batches = new OutcomeBatch(sql, settings, report);
    this.thread =
        LoopThreads.builder(sql.dialect())
            .name(settings.instanceId() + "-" + sql.table() + "-completions")
            .unstarted(this::run);
    this.queue = new OutcomeQueue(thread, claimingSoon, running);
  }

  /** Where deliveries and the claim loop put outcomes for this writer. */
  OutcomeQueue queue() {
    return queue;
  }

  void start() {
    thread.start();
  }

  /** What a committed claim recorded: as if this writer had written it. */
  void carried(Carried c) {
    List<Runnable> afterCommit = new ArrayList<>(1);
    batches.carried(c, afterCommit);
    onWritten.accept(c.outcomes);
    afterCommit.forEach(Listeners::call);
  }

  /**
   * Writes what is queued (retrying a failing database until {@code patience} has passed), then
   * stops; waits for that through interrupts. Returns true if the caller was interrupted.
   */
  boolean close(Duration patience) {
    giveUpAtNanos = System.nanoTime() + patience.toNanos();
    queue.add(OutcomeQueue.STOP);
    return Joins.join(thread, patience.plusSeconds(5));
  }

  private void run() {
    LoopGuard guard = new LoopGuard(thread.getName(), settings.lease());
    List<Outcome> batch = new ArrayList<>();
    boolean stop = false;
    while (true) {
      try {
        writeRewrites();
        if (stop && batch.isEmpty()) {
          return; // an Error ended the last pass after the stop signal's batch was written
        }
        if (batch.isEmpty()) {
          Outcome first = queue.take();
          if (first == null) {
            return; // interrupted
          }
          if (first == OutcomeQueue.REWRITE) {
            continue;
          }
          batch.add(first);
          queue.drain(batch, OutcomeQueue.MAX_BATCH);
          if (lingers) {
            queue.linger(batch);
          }
        }
        if (batch.remove(OutcomeQueue.STOP)) {
          stop = true;
          queue.drain(batch, Integer.MAX_VALUE);
        }
        writeWithRetry(
            batch, false); // keeps going through SQL failures; an Error reaches the guard
        batch.clear();
        guard.succeeded();
        if (stop) {
          writeRewrites();
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

  /** Writes the successes of failed claims that may have committed, each claim's on their own. */
  private void writeRewrites() {
    Carried c;
    while ((c = queue.nextRewrite()) != null) {
      writeWithRetry(c.outcomes, true);
      queue.rewritten(); // only now: if an Error stops the write, it is tried again
    }
  }

  /**
   * Writes {@code batch} in one transaction, retrying while the database is unreachable or busy
   * ({@code mayHaveCommitted}: an earlier try, here or in a claim, may have committed it). A batch
   * that fails for a reason retrying cannot cure is written outcome by outcome, and an outcome that
   * still fails is dropped with an ERROR: its lease expires and the row is delivered again, rather
   * than one bad outcome stopping every later one.
   */
  private void writeWithRetry(List<Outcome> batch, boolean mayHaveCommitted) {
    if (batch.isEmpty()) {
      return; // only the stop signal
    }
    long pauseMillis = 50;
    // listener calls and parking logs wait for the commit: a rolled-back try reports nothing
    List<Runnable> afterCommit = new ArrayList<>();
    while (true) {
      boolean retry = mayHaveCommitted;
      try {
        afterCommit.clear();
        gate.through(
            () ->
                OutcomeBatch.oneStatement(batch)
                    ? Jdbc.autoCommit(dataSource, c -> batches.write(c, batch, retry, afterCommit))
                    : Jdbc.inTransaction(
                        dataSource, c -> batches.write(c, batch, retry, afterCommit)));
      } catch (SQLException | RuntimeException e) {
        mayHaveCommitted |= e instanceof SQLException s && sql.dialect().connectionBroken(s);
        if (System.nanoTime() >= giveUpAtNanos) {
          log.warn(
              "{} - could not record {} outcomes on {} before shutdown; their leases will expire and"
                  + " they will be delivered again",
              settings.instanceId(),
              batch.size(),
              sql.table(),
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
                sql.table(),
                e);
            onWritten.accept(batch);
          } else {
            for (Outcome o : batch) {
              writeWithRetry(List.of(o), mayHaveCommitted);
            }
          }
          return;
        }
        if (e instanceof SQLException s && sql.dialect().isTransient(s)) {
          report.retried("outcome", s);
        } else {
          log.warn(
              "{} - recording {} outcomes on {} failed, retrying in {} ms: {}",
              settings.instanceId(),
              batch.size(),
              sql.table(),
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

  /**
   * True if retrying the same write cannot help: a bad value, a constraint, a bug. Not a broken
   * connection ({@link dev.postbox.internal.dialect.Dialect#connectionBroken}: H2's server mode
   * says 90067), a transient error, operator intervention (class 57: a cancelled statement, a
   * server shutting down), nor an error without SQLState (sqlite-jdbc gives none).
   */
  private boolean permanent(Exception e) {
    if (!(e instanceof SQLException s)) {
      return true;
    }
    String state = s.getSQLState();
    return state != null
        && !state.startsWith("57")
        && !sql.dialect().connectionBroken(s)
        && !sql.dialect().isTransient(s)
        && !(s instanceof SQLTransientException);
  }
}

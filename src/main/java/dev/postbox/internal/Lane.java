package dev.postbox.internal;

import dev.postbox.RejectedMessageException;
import dev.postbox.internal.dialect.Dialect;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery engine for one table: claims due rows in batches with a lease on the database clock,
 * delivers each on its own virtual thread (at most {@code concurrency} at once, outside any
 * transaction), and hands outcomes to {@link Completions}. The outbox and the job queue are two
 * lanes of this one class.
 *
 * <p>A delivery takes one slot and delivers one row, or, with a {@link BatchDeliverer}, all rows of
 * one claim together. Claimed deliveries wait in {@code waiting} for a slot. A delivery that ends
 * while others wait starts the next one itself and passes its slot on, so the claim loop wakes once
 * per batch (when the batch has started and a slot is free), not once per row.
 */
public final class Lane<T> {
  private static final Logger log = LoggerFactory.getLogger(Lane.class);
  private static final Duration MAX_DELAY = Duration.ofDays(365);
  private static final long FIRST_IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long SOON_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

  private final DataSource dataSource;
  private final QueueTable<T> table;
  private final QueueSql sql;
  private final LaneSettings settings;
  private final Deliverer<T> deliverer;
  private final BatchDeliverer<T> batchDeliverer; // null: one row per delivery
  private final Claimer<T> claimer;
  private final Completions completions;
  private final LeaseRenewer leases;
  private final Periodic renewer;
  private final Periodic cleaner;
  private final Outage outage;
  private final String name;

  private final ReentrantLock lock = new ReentrantLock();
  // two conditions: a delivery ending must not wake a claim loop that waits for new rows
  private final Condition slotFreed = lock.newCondition();
  private final Condition woken = lock.newCondition();
  private volatile int running; // written under lock; read without it
  private boolean wakeRequested; // guarded by lock
  private volatile boolean stopping;
  // the claim loop will claim again soon (not waiting long): it may carry outcomes for the writer
  private volatile boolean claiming;
  // each element is one delivery: a single row, or a claim's rows for the batchDeliverer
  private final ArrayDeque<List<Claimed<T>>> waiting = new ArrayDeque<>(); // guarded by lock
  private final Set<Thread> deliveries = new HashSet<>(); // guarded by lock
  private final Map<Long, Claimed<T>> held = new ConcurrentHashMap<>();
  private Thread loop;
  private volatile ClassLoader contextClassLoader; // the starter's, for every delivery
  // one name for all: building a name per thread costs more than starting the thread
  private final Thread.Builder deliveryThreads;

  public Lane(
      DataSource dataSource,
      Dialect dialect,
      QueueTable<T> table,
      LaneSettings settings,
      Deliverer<T> deliverer,
      BatchDeliverer<T> batchDeliverer) {
    this.dataSource = dataSource;
    this.table = table;
    this.sql = new QueueSql(dialect, table, settings.batchSize());
    this.settings = settings;
    this.deliverer = deliverer;
    this.batchDeliverer = batchDeliverer;
    this.name = settings.instanceId() + "-" + table.name();
    // a delivery thread is created by the one before it: inherit nothing from user code
    this.deliveryThreads =
        Thread.ofVirtual().name(name + "-delivery").inheritInheritableThreadLocals(false);
    WriteGate gate = new WriteGate(dialect.singleWriter());
    this.claimer = new Claimer<>(dataSource, sql, table, settings, gate);
    this.completions =
        new Completions(
            dataSource,
            sql,
            settings,
            gate,
            this::runningNow,
            () -> claiming,
            this::written,
            e -> stopAfter("outcome writer", e));
    // renewal gets its own thread: a long cleanup must never delay it past a lease
    this.leases = new LeaseRenewer(dataSource, sql, settings, held::keySet);
    this.renewer =
        new Periodic(
            name + "-renew", List.of(new Periodic.Task(settings.lease().dividedBy(3), leases)));
    this.cleaner =
        settings.retention().isZero()
            ? null
            : new Periodic(
                name + "-cleanup",
                List.of(
                    new Periodic.Task(
                        settings.cleanupInterval(),
                        new Cleanup(
                            dataSource,
                            table.name(),
                            sql.cleanup,
                            settings.retention(),
                            settings.instanceId(),
                            () -> stopping))));
    this.outage = new Outage(settings, table.name());
  }

  public String table() {
    return table.name();
  }

  public void start() {
    contextClassLoader = Thread.currentThread().getContextClassLoader();
    completions.start();
    leases.started();
    renewer.start();
    if (cleaner != null) {
      cleaner.start();
    }
    loop = LoopThreads.builder(sql.dialect).name(name + "-claims").start(this::claimLoop);
  }

  /** Cuts the current poll wait short: new rows were committed. */
  public void wakeUp() {
    lock.lock();
    try {
      wakeRequested = true;
      woken.signal();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops claiming, waits up to the shutdown timeout for running deliveries, hands back rows that
   * were claimed but not started, interrupts what is left, writes the outcomes, then stops renewing
   * leases. Every step runs even if the calling thread is interrupted: an interrupt only cuts the
   * wait for running deliveries short. The interrupt status is kept.
   */
  public void close() {
    boolean interrupted = false;
    stopping = true;
    lock.lock();
    try {
      woken.signalAll();
      slotFreed.signalAll();
    } finally {
      lock.unlock();
    }
    if (loop != null) {
      interrupted |= Joins.join(loop, Duration.ofSeconds(30));
    }
    handBack(takeWaiting());
    boolean idle;
    try {
      idle = awaitIdle(System.nanoTime() + settings.shutdownTimeout().toNanos());
    } catch (InterruptedException e) {
      interrupted = true;
      idle = false;
    }
    if (!idle) {
      interruptDeliveries();
      interrupted |= awaitIdleUninterruptibly(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
    if (cleaner != null) {
      interrupted |= cleaner.close();
    }
    interrupted |= completions.close(settings.shutdownTimeout().plusSeconds(5));
    interrupted |= renewer.close(); // last: rows stay leased until their outcomes are written
    if (!held.isEmpty()) {
      log.warn(
          "{} - {} rows still leased at shutdown; they return after their lease expires",
          name,
          held.size());
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops this lane for good after one of its loops could not go on: no more claims, no more lease
   * renewals, so other instances take its rows over after one lease.
   */
  void stopAfter(String loopName, Throwable cause) {
    stopping = true;
    wakeUp();
    log.error(
        "{} - {} failed with errors for a whole lease; no longer claiming or renewing leases on {}:"
            + " other instances take its rows over after the lease; restart this process",
        name,
        loopName,
        table.name(),
        cause);
    Listeners.call(() -> settings.listener().tableStopped(table.name(), cause));
    renewer.stopWithoutWaiting();
  }

  private void claimLoop() {
    claiming = true;
    LoopGuard guard = new LoopGuard(name + "-claims", settings.lease());
    try {
      while (!stopping) {
        try {
          if (!claimOnce()) {
            return;
          }
          guard.succeeded();
        } catch (Throwable e) { // an Error: an SQLException or a bug is handled in claimOnce
          Duration pause = guard.pauseAfter(e);
          if (pause == null) {
            stopAfter("claim loop", e);
            return;
          }
          waitForWakeUp(pause);
        }
      }
    } finally {
      claiming = false;
      completions.claimsPaused();
    }
  }

  // the claim loop's own state across claims
  private long errorPauseMillis = 100;
  private long idleWaitNanos;

  /**
   * One turn of the claim loop: waits for a free slot, claims and starts the deliveries, or waits
   * after an empty or failed claim. False when the lane is stopping.
   */
  private boolean claimOnce() {
    long pollNanos = settings.pollInterval().toNanos();
    if (!awaitSlot()) {
      return false;
    }
    int limit = outage.claimLimit(settings.batchSize());
    if (limit == 0) { // outage: wait for the probe time, or for the probe in flight to end
      waitForWakeUp(outage.probing() ? settings.pollInterval() : outage.untilProbe());
      return true;
    }
    List<Claimed<T>> rows;
    Carried carried = null; // successes this claim records too
    try {
      // in an outage the one row claimed is a probe: the newest not probed yet in this outage,
      // else (every due row failed a probe) the newest again
      List<Long> probed = outage.probeExclusions();
      carried = probed == null ? completions.takeForClaim() : null;
      List<Claimed<T>> claimed = claim(limit, probed, carried);
      if (carried != null) {
        completions.carried(carried);
        carried = null;
      }
      if (claimed.isEmpty() && probed != null && !probed.isEmpty()) {
        claimed = claim(limit, List.of(), null);
      }
      rows = claimed;
      outage.claimed(rows);
      errorPauseMillis = 100;
    } catch (Throwable e) {
      if (carried != null) {
        completions.giveBack(carried);
      }
      outage.claimed(List.of());
      if (e instanceof Error error) {
        throw error;
      }
      log.warn("{} - claim failed, retrying in {} ms: {}", name, errorPauseMillis, e.toString());
      waitForWakeUp(Duration.ofMillis(errorPauseMillis));
      errorPauseMillis =
          Math.min(errorPauseMillis * 2, settings.pollInterval().toMillis() * 10 + 100);
      return true;
    }
    if (rows.isEmpty()) {
      idleWaitNanos = idleWaitNanos == 0 ? pollNanos : idleWaitNanos;
      waitForWakeUp(Duration.ofNanos(idleWaitNanos));
      idleWaitNanos = Math.min(idleWaitNanos * 2, pollNanos);
      return true;
    }
    // rows are being added: after the next empty claim look again soon, not only when woken,
    // because a wake-up can lag far behind its commit (pgjdbc hands NOTIFYs over only once none
    // has arrived for 1 ms: under a steady stream of adds, hundreds of ms late)
    idleWaitNanos = FIRST_IDLE_WAIT_NANOS;
    Listeners.call(() -> settings.listener().claimed(table.name(), rows.size()));
    startAll(rows);
    return true;
  }

  private List<Claimed<T>> claim(int limit, List<Long> probe, Carried carried) throws SQLException {
    List<Claimed<T>> rows = claimer.claim(limit, probe, carried);
    for (Claimed<T> row : rows) {
      held.put(row.id(), row);
    }
    return rows;
  }

  private void startAll(List<Claimed<T>> rows) {
    List<Claimed<T>> deliverable = new ArrayList<>(rows.size());
    for (Claimed<T> row : rows) {
      int max = maxAttempts(row);
      if ((batchDeliverer != null && row.defect() != null) || row.attempt() > max) {
        outage.ended(row.id()); // never delivered: a probe that is not sent is no probe
      }
      if (batchDeliverer != null && row.defect() != null) {
        completions.add(
            new Outcome(row, Outcome.Kind.PARKED, new ParkNow(row.defect()), Duration.ZERO, 0));
      } else if (row.attempt() > max) {
        // claimed more often than allowed without an outcome: the instance died or lost its
        // lease mid-delivery each time, so delivering again may crash this one too
        completions.add(
            new Outcome(
                row,
                Outcome.Kind.PARKED,
                new ParkNow(
                    "claimed "
                        + row.attempt()
                        + " times without a recorded outcome (crashes or lost leases), maxAttempts "
                        + max),
                Duration.ZERO,
                0));
      } else {
        deliverable.add(row);
      }
    }
    if (deliverable.isEmpty()) {
      return;
    }
    List<Thread> threads = new ArrayList<>(Math.min(deliverable.size(), settings.concurrency()));
    List<List<Claimed<T>>> threadRows = new ArrayList<>(threads.size());
    List<Claimed<T>> handBack = List.of();
    lock.lock();
    try {
      if (stopping) {
        handBack = deliverable;
      } else {
        // in an outage only the probe (the first row) is delivered; the rest go back at once
        int end = deliverable.size();
        if (outage.active()) {
          handBack = deliverable.subList(1, end);
          end = 1;
        }
        if (batchDeliverer != null) {
          // in the order they were added, whatever order the claim statement returned them in
          List<Claimed<T>> batch = new ArrayList<>(deliverable.subList(0, end));
          batch.sort(Comparator.comparingLong(Claimed::id));
          startOrQueueLocked(batch, threads, threadRows);
        } else {
          for (int i = 0; i < end; i++) {
            startOrQueueLocked(List.of(deliverable.get(i)), threads, threadRows);
          }
        }
      }
    } finally {
      lock.unlock();
    }
    for (int i = 0; i < threads.size(); i++) {
      started(threads.get(i), threadRows.get(i));
    }
    handBack(handBack);
  }

  private void startOrQueueLocked(
      List<Claimed<T>> rows, List<Thread> threads, List<List<Claimed<T>>> threadRows) {
    if (running < settings.concurrency() && waiting.isEmpty()) {
      running++;
      threads.add(deliveryThread(rows));
      threadRows.add(rows);
    } else {
      waiting.add(rows);
    }
  }

  /** The delivery thread of {@code rows}, not yet started, registered for interruption. */
  private Thread deliveryThread(List<Claimed<T>> rows) {
    Thread t =
        deliveryThreads.unstarted(
            batchDeliverer != null ? () -> deliverBatch(rows) : () -> deliver(rows.get(0)));
    deliveries.add(t);
    return t;
  }

  private List<Claimed<T>> takeWaiting() {
    lock.lock();
    try {
      List<Claimed<T>> rows = new ArrayList<>();
      waiting.forEach(rows::addAll);
      waiting.clear();
      return rows;
    } finally {
      lock.unlock();
    }
  }

  /** Hands back rows that were claimed but never started: due again at once, attempt refunded. */
  private void handBack(List<Claimed<T>> rows) {
    logHandBack(release(rows));
  }

  /** Queues the hand-back outcomes (never blocks: safe under the lock); returns how many. */
  private int releaseWaiting() {
    int n = 0;
    for (List<Claimed<T>> rows : waiting) {
      n += release(rows);
    }
    waiting.clear();
    return n;
  }

  /** Queues the hand-back outcomes (never blocks: safe under the lock); returns how many. */
  private int release(Iterable<Claimed<T>> rows) {
    int n = 0;
    for (Claimed<T> row : rows) {
      completions.add(new Outcome(row, Outcome.Kind.RELEASED, null, Duration.ZERO, 0));
      n++;
    }
    return n;
  }

  private void logHandBack(int rows) {
    if (rows > 0) {
      log.info("{} - handing back {} claimed rows that had not started", name, rows);
    }
  }

  private void interruptDeliveries() {
    lock.lock();
    try {
      log.warn(
          "{} - interrupting {} deliveries still running after the shutdown timeout",
          name,
          deliveries.size());
      deliveries.forEach(Thread::interrupt);
    } finally {
      lock.unlock();
    }
  }

  private void deliver(Claimed<T> row) {
    long started = System.nanoTime();
    Outcome outcome = null;
    try {
      Thread.currentThread().setContextClassLoader(contextClassLoader);
      if (row.defect() != null) {
        throw new ParkNow(row.defect());
      }
      deliverer.deliver(row);
      outcome = new Outcome(row, Outcome.Kind.SUCCEEDED, null, null, System.nanoTime() - started);
      outage.succeeded();
    } catch (Throwable e) {
      outcome = failure(row, e, System.nanoTime() - started, true);
    } finally {
      // whatever happened above, the row gets an outcome and the slot goes to the next row or back
      completions.add(
          outcome != null
              ? outcome
              : new Outcome(
                  row,
                  Outcome.Kind.FAILED,
                  new IllegalStateException("no outcome"),
                  Duration.ofSeconds(1),
                  System.nanoTime() - started));
      outage.ended(row.id());
      finished();
    }
  }

  /**
   * Delivers {@code rows} in one call of the batch deliverer. Failures of single rows while others
   * went through are no sign of an outage; a failure of the whole batch is, as for single rows.
   */
  private void deliverBatch(List<Claimed<T>> rows) {
    long started = System.nanoTime();
    Outcome[] outcomes = new Outcome[rows.size()];
    try {
      Thread.currentThread().setContextClassLoader(contextClassLoader);
      Map<Claimed<T>, Throwable> failed;
      Throwable all = null;
      try {
        failed = batchDeliverer.deliver(rows);
      } catch (Throwable e) {
        failed = Map.of();
        all = e;
      }
      long elapsed = System.nanoTime() - started;
      boolean someSent = all == null && failed.size() < rows.size();
      if (someSent) {
        outage.succeeded();
      }
      for (int i = 0; i < outcomes.length; i++) {
        Claimed<T> row = rows.get(i);
        Throwable e = all != null ? all : failed.get(row);
        outcomes[i] =
            e == null
                ? new Outcome(row, Outcome.Kind.SUCCEEDED, null, null, elapsed)
                : failure(row, e, elapsed, !someSent);
      }
    } finally {
      // whatever happened above, every row gets an outcome and the slot goes to the next delivery
      for (int i = 0; i < outcomes.length; i++) {
        if (outcomes[i] == null) {
          outcomes[i] =
              new Outcome(
                  rows.get(i),
                  Outcome.Kind.FAILED,
                  new IllegalStateException("no outcome"),
                  Duration.ofSeconds(1),
                  System.nanoTime() - started);
        }
      }
      completions.addAll(outcomes);
      outage.ended(rows.get(0).id());
      finished();
    }
  }

  /**
   * Ends the calling delivery: passes its slot to the next waiting row (or, while stopping or in an
   * outage, hands the waiting rows back), else frees the slot.
   */
  private void finished() {
    Thread next = null;
    List<Claimed<T>> nextRow = null;
    int handedBack = 0;
    boolean idle = false;
    lock.lock();
    try {
      deliveries.remove(Thread.currentThread());
      if (!waiting.isEmpty() && (stopping || outage.active())) {
        // queued before this slot is freed, so close() cannot stop the writer before them
        handedBack = releaseWaiting();
      }
      nextRow = waiting.poll();
      if (nextRow != null) {
        next = deliveryThread(nextRow); // the slot passes on: running stays as it is
      } else {
        running--;
        idle = running == 0;
        slotFreed.signalAll();
      }
    } finally {
      lock.unlock();
    }
    if (next != null && !started(next, nextRow)) {
      idle = runningNow() == 0;
    }
    if (idle) {
      completions.nudge();
    }
    logHandBack(handedBack);
  }

  /**
   * Starts a delivery thread whose slot is already counted; if the JVM cannot start it, gives the
   * slot back and hands the rows back. False if it did not start.
   */
  private boolean started(Thread thread, List<Claimed<T>> rows) {
    try {
      thread.start();
      return true;
    } catch (RuntimeException | OutOfMemoryError e) {
      lock.lock();
      try {
        deliveries.remove(thread);
        running--;
        slotFreed.signalAll();
      } finally {
        lock.unlock();
      }
      release(rows);
      outage.ended(rows.get(0).id());
      log.error(
          "{} - cannot start a delivery thread; handing {} rows back (first id={})",
          name,
          rows.size(),
          rows.get(0).id(),
          e);
      return false;
    }
  }

  /**
   * The outcome of a failed delivery of {@code row}; {@code outageEvidence} false if the transport
   * sent other rows at the same time, so the failure cannot mean the broker is down.
   */
  private Outcome failure(Claimed<T> row, Throwable e, long elapsed, boolean outageEvidence) {
    try {
      if (stopping && interrupted(e)) {
        return new Outcome(row, Outcome.Kind.RELEASED, e, Duration.ZERO, elapsed);
      }
      if (e instanceof ParkNow) {
        return new Outcome(row, Outcome.Kind.PARKED, e, Duration.ZERO, elapsed);
      }
      if (outageEvidence
          && !(e instanceof RejectedMessageException)
          && !outage.failedAndCounts(row.id(), row.attempt())) {
        return new Outcome(row, Outcome.Kind.REFUNDED, e, outage.untilProbe(), elapsed);
      }
      if (row.attempt() >= maxAttempts(row)) {
        return new Outcome(row, Outcome.Kind.PARKED, e, Duration.ZERO, elapsed);
      }
      log.debug(
          "{} - attempt {} of id={} ref={} topic={} failed: {}",
          name,
          row.attempt(),
          row.id(),
          row.ref(),
          row.topic(),
          e.getClass().getName());
      return new Outcome(row, Outcome.Kind.FAILED, e, backoff(row.attempt()), elapsed);
    } catch (RuntimeException bug) {
      e.addSuppressed(bug);
      return new Outcome(row, Outcome.Kind.FAILED, e, Duration.ofSeconds(1), elapsed);
    }
  }

  /** The user's backoff, kept within what every database's timestamps can hold. */
  private Duration backoff(int attempt) {
    Duration delay = null;
    try {
      delay = settings.backoff().delay(attempt);
    } catch (RuntimeException e) {
      log.warn("{} - backoff threw for attempt {}; retrying in 1 s", name, attempt, e);
    }
    if (delay == null || delay.isNegative()) {
      return Duration.ofSeconds(1);
    }
    return delay.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : delay;
  }

  private static boolean interrupted(Throwable e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException) {
        return true;
      }
    }
    return false;
  }

  private int maxAttempts(Claimed<T> row) {
    return row.maxAttempts() > 0 ? row.maxAttempts() : settings.maxAttempts();
  }

  private void written(List<Outcome> batch) {
    for (Outcome o : batch) {
      // this claim of the row only, by identity: a newer claim may be equal in every field
      held.computeIfPresent(o.row().id(), (id, row) -> row == o.row() ? null : row);
    }
  }

  private int runningNow() {
    return running;
  }

  /**
   * Waits until every claimed row has started and a slot is free, so at most a batch plus the
   * running deliveries are held; false if the lane is stopping.
   */
  private boolean awaitSlot() {
    lock.lock();
    try {
      while ((running >= settings.concurrency() || !waiting.isEmpty()) && !stopping) {
        slotFreed.awaitUninterruptibly();
      }
      return !stopping;
    } finally {
      lock.unlock();
    }
  }

  private void waitForWakeUp(Duration timeout) {
    long nanos = timeout.toNanos();
    if (nanos > SOON_NANOS) { // the writer should not wait for a claim this far off
      claiming = false;
      completions.claimsPaused();
    }
    lock.lock();
    try {
      while (!wakeRequested && !stopping && nanos > 0) {
        nanos = woken.awaitNanos(nanos);
      }
      wakeRequested = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
      claiming = !stopping;
    }
  }

  /** {@link #awaitIdle} that waits through interrupts; true if it was interrupted. */
  private boolean awaitIdleUninterruptibly(long deadlineNanos) {
    boolean interrupted = false;
    while (true) {
      try {
        awaitIdle(deadlineNanos);
        return interrupted;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
  }

  private boolean awaitIdle(long deadlineNanos) throws InterruptedException {
    lock.lock();
    try {
      while (running > 0) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        slotFreed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}

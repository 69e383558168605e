package dev.postbox.internal.lane;

import dev.postbox.internal.Cleanup;
import dev.postbox.internal.Joins;
import dev.postbox.internal.KeysPrune;
import dev.postbox.internal.Listeners;
import dev.postbox.internal.Periodic;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.sql.Admission;
import dev.postbox.internal.sql.AdmittingClaim;
import dev.postbox.internal.sql.ClaimStrategy;
import dev.postbox.internal.sql.QueueSql;
import dev.postbox.internal.sql.QueueTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery engine for one table: the outbox and the job queue are two lanes of this one class.
 * It wires the parts and runs their life cycle: the {@link ClaimLoop} claims due rows in batches
 * with a lease on the database clock (its {@link ExtraClaimLoop}s too while a backlog lasts);
 * {@link Deliveries} delivers each in a {@link DeliverySlots} slot, outside any transaction; {@link
 * DeliveryTimeouts} ends deliveries that run past their {@link TimeLimit}; the {@link
 * FailurePolicy} turns failures into outcomes; the {@link OutcomeWriter} records them, fenced by
 * the lease; the {@link LeaseRenewer} keeps held rows leased; {@link Cleanup} deletes finished rows
 * past their retention. Thread-safe.
 */
public final class Lane<T> {
  private static final Logger log = LoggerFactory.getLogger(Lane.class);
  // how long a thread interrupted at its timeout may take to end before it is abandoned with a WARN
  private static final Duration TIMEOUT_GRACE = Duration.ofSeconds(5);

  private final String name;
  private final QueueTable<T> table;
  private final LaneSettings settings;
  private final Deliveries<T> deliveries;
  private final DeliverySlots<T> slots;
  private final DeliveryTimeouts timeouts;
  private final OutcomeWriter writer;
  private final Vacuum vacuum;
  private final LaneState<T> state = new LaneState<>();
  private final Admission admission; // a job table's, null for the outbox
  private final AdmittingClaim.Pace pace;
  private final ClaimWait wakeUps = new ClaimWait(state::stopping); // the main claim loop's
  private final ClaimLoop<T> claimLoop;
  private final List<ExtraClaimLoop<T>> extraLoops = new ArrayList<>();
  private final LeaseRenewer leases;
  private final Periodic renewer;
  private final Periodic cleaner;
  private final Dialect dialect;
  private final LaneCounts counts;
  private Thread loop;
  private final List<Thread> extraThreads = new ArrayList<>();

  /**
   * @param recipient where the lane's rows go, and how long a delivery may run
   */
  Lane(
      DataSource dataSource,
      Dialect dialect,
      QueueTable<T> table,
      LaneSettings settings,
      Recipient<T> recipient) {
    this.table = table;
    this.settings = settings;
    this.dialect = dialect;
    this.name = settings.instanceId() + "-" + table.name();
    QueueSql sql = QueueSql.of(dialect, table, settings.batchSize());
    this.admission =
        table.limits() == null ? null : new Admission(table, dialect, settings.batchSize());
    this.pace =
        table.limits() == null ? null : new AdmittingClaim.Pace(settings.pollInterval().toNanos());
    Outage outage = new Outage(settings, table.name());
    this.vacuum =
        new Vacuum(
            dataSource,
            sql.vacuum(),
            sql.statsStale(),
            sql.analyze(),
            settings.vacuumEvery(),
            settings.instanceId());
    LaneTable lane =
        new LaneTable(
            dataSource,
            sql,
            new WriteGate(dialect.oneWriter()),
            new LaneReport(settings, table.name(), vacuum, table.keyOrder()));
    this.counts = lane.report().counts();
    this.writer =
        new OutcomeWriter(
            lane,
            settings,
            this::running,
            wakeUps::claimingSoon,
            state::written,
            e -> stopAfter("outcome writer", e));
    this.timeouts = new DeliveryTimeouts(name, TIMEOUT_GRACE, settings.concurrency());
    this.deliveries =
        new Deliveries<>(
            recipient,
            new FailurePolicy(settings, outage, name, state::stopping),
            writer.queue(),
            outage,
            timeouts,
            wakeUps::wakeUp,
            task ->
                new DeliverySlots<>(
                    name,
                    settings.concurrency(),
                    settings.batchSize(),
                    writer.queue(),
                    outage,
                    state::stopping,
                    task));
    this.slots = deliveries.slots();
    // one writer at a time (SQLite): a second claim in flight would only wait for the first
    int extra = dialect.oneWriter() ? 0 : settings.claimsInFlight() - 1;
    ClaimParts<T> parts =
        new ClaimParts<>(
            table.name(), settings, state, deliveries, writer, outage, this::stopAfter);
    this.claimLoop = new ClaimLoop<>(parts, claimer(lane), wakeUps, extra == 0);
    for (int i = 0; i < extra; i++) {
      extraLoops.add(new ExtraClaimLoop<>(parts, claimer(lane)));
    }
    // renewal gets its own thread: a long cleanup must never delay it past a lease
    this.leases = new LeaseRenewer(dataSource, sql, settings, state.held::ids);
    this.renewer =
        new Periodic(
            name + "-renew", List.of(new Periodic.Task(settings.lease().dividedBy(3), leases)));
    List<Periodic.Task> upkeep = new ArrayList<>();
    if (!settings.retention().isZero()) {
      upkeep.add(
          new Periodic.Task(
              settings.cleanupInterval(),
              new Cleanup(
                  dataSource,
                  table.name(),
                  c -> sql.cleanup(c, settings.retention(), Cleanup.BATCH),
                  settings.instanceId(),
                  state::stopping)));
    }
    if (table.keyOrder() != null && KeysPrune.hasKeysTable(dialect.database())) {
      upkeep.add(
          new Periodic.Task(
              settings.cleanupInterval(),
              new KeysPrune(
                  dataSource, dialect, table.name(), settings.instanceId(), state::stopping)));
    }
    this.cleaner = upkeep.isEmpty() ? null : new Periodic(name + "-cleanup", upkeep);
  }

  /** A claimer with its own claim strategy (a strategy's state is its loop's alone). */
  private Claimer<T> claimer(LaneTable lane) {
    boolean keepDone = !settings.retention().isZero();
    ClaimStrategy claims = lane.sql().claims(settings.instanceId(), settings.lease(), keepDone);
    return new Claimer<>(
        lane.dataSource(),
        admission == null ? claims : new AdmittingClaim(claims, admission, pace),
        table.reader(),
        lane.gate(),
        dialect,
        lane.report());
  }

  /** {@return what this lane finished since it started, for the console's metrics} */
  public LaneCounts counts() {
    return counts;
  }

  public String table() {
    return table.name();
  }

  void start() {
    vacuum.started(); // a table loaded and never analysed is analysed before claims pile up on it
    deliveries.started();
    writer.start();
    timeouts.start();
    leases.started();
    renewer.start();
    if (cleaner != null) {
      cleaner.start();
    }
    loop = LoopThreads.builder(dialect).name(name + "-claims").start(claimLoop);
    for (int i = 0; i < extraLoops.size(); i++) {
      extraThreads.add(
          LoopThreads.builder(dialect).name(name + "-claims-" + (i + 2)).start(extraLoops.get(i)));
    }
  }

  /** Cuts the current poll wait short: new rows were committed. */
  public void wakeUp() {
    if (pace != null) {
      pace.wake();
    }
    wakeUps.wakeUp();
  }

  /**
   * Where the lane's activity stands now; {@link #awaitIdleAfter} waits for a claim after it.
   *
   * @return a count that grows with every claim started and every outcome written
   */
  long activity() {
    return state.idle.activity();
  }

  /**
   * Waits until a claim started after {@code seen} proves the lane idle: it looked at every row it
   * could claim and claimed nothing while the lane held no row, no extra loop's claim was in flight
   * and nothing else happened on the lane. Wakes the claim loop meanwhile.
   *
   * @param seen what {@link #activity} returned before the wait
   * @param deadlineNanos the {@link System#nanoTime} at which to give up
   * @return false if the deadline passed first or the lane is stopping
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  boolean awaitIdleAfter(long seen, long deadlineNanos) throws InterruptedException {
    return state.idle.awaitProofAfter(seen, deadlineNanos, wakeUps::wakeUp) && !state.stopping();
  }

  /**
   * Stops claiming, waits up to the shutdown timeout for running deliveries (their timeouts still
   * end them), hands back rows that were claimed but not started, interrupts what is left, stops
   * the timeouts, writes the outcomes, then stops renewing leases. Every step runs even if the
   * calling thread is interrupted: an interrupt only cuts the wait for running deliveries short.
   * The interrupt status is kept.
   */
  void close() {
    boolean interrupted = Thread.interrupted();
    state.stop();
    wakeUps.wakeUp();
    state.backlog.wakeAll();
    slots.stopWaiting();
    if (loop != null) {
      interrupted |= Joins.join(loop, Duration.ofSeconds(30));
    }
    for (Thread extra : extraThreads) {
      interrupted |= Joins.join(extra, Duration.ofSeconds(30));
    }
    slots.handBackWaiting();
    boolean idle = false; // an interrupt, now or while waiting, ends the wait at once
    try {
      idle =
          !interrupted && slots.awaitIdle(System.nanoTime() + settings.shutdownTimeout().toNanos());
    } catch (InterruptedException e) {
      interrupted = true;
    }
    if (!idle) {
      slots.interruptAll();
      interrupted |=
          slots.awaitIdleUninterruptibly(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
    interrupted |= timeouts.close(); // before the writer: a timeout's outcome goes through it
    if (cleaner != null) {
      interrupted |= cleaner.close();
    }
    interrupted |= writer.close(settings.shutdownTimeout().plusSeconds(5));
    interrupted |= vacuum.close(); // after the writer, whose last finishes may start one
    interrupted |= renewer.close(); // last: rows stay leased until their outcomes are written
    if (!state.held.isEmpty()) {
      log.warn(
          "{} - {} rows still leased at shutdown; they return after their lease expires",
          name,
          state.held.size());
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops this lane for good after one of its loops could not go on: no more claims, no more lease
   * renewals, so other instances take its rows over after one lease.
   */
  private void stopAfter(String loopName, Throwable cause) {
    state.stop();
    wakeUps.wakeUp();
    state.backlog.wakeAll();
    slots.stopWaiting();
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

  private int running() {
    return slots.running();
  }
}

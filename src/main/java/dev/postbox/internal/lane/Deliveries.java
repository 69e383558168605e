package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a lane's deliveries: each row on its own thread with the {@link Deliverer} (the rows of one
 * key, on a table ordered by key, one after another on one thread), or a claim's rows together with
 * the {@link BatchDeliverer}, outside any transaction and without a connection; every row gets
 * exactly one outcome, which goes to the outcome writer. A delivery that runs past its {@link
 * TimeLimit} is ended by the lane's {@link DeliveryTimeouts}: its row fails with a {@link
 * TimeoutException}, the rest of its run is handed back, its slot is freed, and whatever its thread
 * does later is dropped. Thread-safe.
 */
final class Deliveries<T> {
  private static final Logger log = LoggerFactory.getLogger(Deliveries.class);

  private final Deliverer<T> deliverer;
  private final BatchDeliverer<T> batchDeliverer; // null: one row per delivery
  private final FailurePolicy failures;
  private final OutcomeQueue outcomes;
  private final Outage outage;
  private final TimeLimit<T> limit;
  private final DeliveryTimeouts timeouts;
  private final Runnable keyFreed;
  private final DeliverySlots<T> slots;
  private volatile ClassLoader contextClassLoader; // the starter's, for every delivery
  // how long the transport or handler took, over every row delivered: whether sends are slow
  private final LongAdder sentRows = new LongAdder();
  private final LongAdder sendNanos = new LongAdder();

  /**
   * @param keyFreed what to run when the run of a key ends (its next message may now be claimed):
   *     wakes the claim loop, which would otherwise wait out its idle pause while every key in the
   *     backlog is in flight
   * @param slots makes the slots the deliveries run in, given what a delivery thread runs
   */
  Deliveries(
      Recipient<T> recipient,
      FailurePolicy failures,
      OutcomeQueue outcomes,
      Outage outage,
      DeliveryTimeouts timeouts,
      Runnable keyFreed,
      Function<Function<List<Claimed<T>>, Runnable>, DeliverySlots<T>> slots) {
    this.deliverer = recipient.deliverer();
    this.batchDeliverer = recipient.batchDeliverer();
    this.failures = failures;
    this.outcomes = outcomes;
    this.outage = outage;
    this.limit = recipient.limit();
    this.timeouts = timeouts;
    this.keyFreed = keyFreed;
    this.slots = slots.apply(this::task);
  }

  /** The slots the deliveries run in. */
  DeliverySlots<T> slots() {
    return slots;
  }

  /** Rows delivered so far (each send or a batch's rows), for {@link #sendNanos}. */
  long sentRows() {
    return sentRows.sum();
  }

  /** The time the transport or handler took over every delivery so far. */
  long sendNanos() {
    return sendNanos.sum();
  }

  /** Every delivery runs with the context class loader of the thread that calls this. */
  void started() {
    contextClassLoader = Thread.currentThread().getContextClassLoader();
  }

  /**
   * Starts the deliveries of a claim's rows, parking those that must not be delivered; the rows of
   * a key behind a parked one are handed back (they wait for it, or go on after it next claim).
   * During an outage the first delivery is the probe if {@code mayProbe} (the main claim loop's
   * claim), and all are handed back otherwise (an extra loop's claim that met the outage).
   */
  void startAll(List<Claimed<T>> rows, boolean mayProbe) {
    List<Claimed<T>> deliverable = new ArrayList<>(rows.size());
    Set<String> stoppedKeys = null;
    for (Claimed<T> row : DeliveryUnits.sortedByKey(rows)) {
      Outcome refused = failures.refuse(row, batchDeliverer != null);
      if (refused != null) {
        outage.ended(row.id()); // never delivered: a probe that is not sent is no probe
        outcomes.add(refused);
        if (row.key() != null) {
          stoppedKeys = stoppedKeys == null ? new HashSet<>() : stoppedKeys;
          stoppedKeys.add(row.key());
        }
      } else if (stoppedKeys != null && row.key() != null && stoppedKeys.contains(row.key())) {
        outcomes.add(new Outcome(row, Outcome.Kind.RELEASED, null, Duration.ZERO, 0));
      } else {
        deliverable.add(row);
      }
    }
    if (!deliverable.isEmpty()) {
      slots.start(DeliveryUnits.of(deliverable, batchDeliverer != null), mayProbe);
    }
  }

  /** What the delivery thread of {@code rows} runs. */
  private Runnable task(List<Claimed<T>> rows) {
    return batchDeliverer != null ? () -> deliverBatch(rows) : () -> deliverRun(rows, 0);
  }

  /**
   * Delivers row {@code i} of {@code rows} (one row, or a run of one key), then passes the slot to
   * a fresh thread for the next row, so that rows go one after another and no thread-local set by
   * one send reaches the next. A row that does not succeed ends the run: the rows after it are
   * handed back without counting an attempt, as they are if the lane stops or an outage starts. A
   * row whose timeout came first was recorded, and its run ended, by the watchdog.
   */
  private void deliverRun(List<Claimed<T>> rows, int i) {
    boolean ended = false; // by this thread, or by the row's timeout
    int next = i + 1;
    try {
      Thread.currentThread().setContextClassLoader(contextClassLoader);
      Outcome outcome = deliver(rows, i);
      ended =
          outcome == null
              || (outcome.kind() == Outcome.Kind.SUCCEEDED
                  && next < rows.size()
                  && !outage.active()
                  && slots.passOn(() -> deliverRun(rows, next)));
    } finally {
      // whatever happened above, every row gets an outcome and the slot goes on or back
      if (!ended) {
        endRun(rows, next, Thread.currentThread());
      }
    }
  }

  /**
   * Ends the run of {@code rows} on {@code thread} before row {@code next}: hands back the rows
   * from there, frees the slot and, for a key, lets its next message be claimed.
   */
  private void endRun(List<Claimed<T>> rows, int next, Thread thread) {
    for (int j = next; j < rows.size(); j++) {
      outcomes.add(new Outcome(rows.get(j), Outcome.Kind.RELEASED, null, Duration.ZERO, 0));
      outage.ended(rows.get(j).id());
    }
    slots.finished(thread);
    if (rows.get(0).key() != null) {
      keyFreed.run();
    }
  }

  /**
   * Delivers row {@code i} of {@code rows} and records its outcome; null if its timeout came first
   * (the watchdog recorded the row's outcome and ended its run).
   */
  private Outcome deliver(List<Claimed<T>> rows, int i) {
    Claimed<T> row = rows.get(i);
    long started = System.nanoTime();
    Thread thread = Thread.currentThread();
    Duration timeout = limit.of(row);
    DeliveryTimeouts.Watch watch =
        timeouts.watch(
            timeout,
            started,
            () -> {
              try {
                record(row, limit.timedOut(timeout, thread), started);
              } finally {
                endRun(rows, i + 1, thread);
              }
            },
            () -> TimeLimit.what(row));
    Throwable error = null;
    try {
      if (row.defect() != null) {
        throw new ParkNow(row.defect());
      }
      deliverer.deliver(row);
    } catch (Throwable e) {
      error = e;
    }
    if (!watch.settle()) {
      dropLate(TimeLimit.what(row), error);
      return null;
    }
    return record(row, error, started);
  }

  /** Records the outcome of {@code row}, delivered unless {@code error}. */
  private Outcome record(Claimed<T> row, Throwable error, long started) {
    Outcome outcome = null;
    long elapsed = System.nanoTime() - started; // once: a clock read costs a no-op send as much
    try {
      if (error == null) {
        outcome = new Outcome(row, Outcome.Kind.SUCCEEDED, null, null, elapsed);
        outage.succeeded();
      } else {
        outcome = failures.failure(row, error, elapsed, true);
      }
    } finally {
      // whatever happened above, the row gets an outcome
      if (outcome == null) {
        outcome = FailurePolicy.none(row, elapsed);
      }
      sendNanos.add(elapsed);
      sentRows.increment();
      outcomes.add(outcome);
      outage.ended(row.id());
    }
    return outcome;
  }

  /**
   * Delivers {@code rows} in one call of the batch deliverer, under one timeout for the whole call.
   * Failures of single rows while others went through are no sign of an outage; a failure of the
   * whole batch is, as for single rows, and so is its timeout.
   */
  private void deliverBatch(List<Claimed<T>> rows) {
    long started = System.nanoTime();
    Thread thread = Thread.currentThread();
    Duration timeout = limit.of(rows);
    DeliveryTimeouts.Watch watch =
        timeouts.watch(
            timeout,
            started,
            () -> recordBatch(rows, Map.of(), limit.timedOut(timeout, thread), started, thread),
            () -> TimeLimit.what(rows));
    Map<Claimed<T>, Throwable> failed = Map.of();
    Throwable all = null;
    try {
      Thread.currentThread().setContextClassLoader(contextClassLoader);
      failed = batchDeliverer.deliver(rows);
    } catch (Throwable e) {
      all = e;
    }
    if (!watch.settle()) {
      dropLate(TimeLimit.what(rows), all);
      return;
    }
    recordBatch(rows, failed, all, started, thread);
  }

  /**
   * Records the outcomes of a batch delivered on {@code thread} ({@code failed} did not go through,
   * or none did if {@code all}), then frees its slot.
   */
  private void recordBatch(
      List<Claimed<T>> rows,
      Map<Claimed<T>, Throwable> failed,
      Throwable all,
      long started,
      Thread thread) {
    Outcome[] batch = new Outcome[rows.size()];
    try {
      long elapsed = System.nanoTime() - started;
      boolean someSent = all == null && failed.size() < rows.size();
      if (someSent) {
        outage.succeeded();
      }
      Set<String> stoppedKeys = null; // keys with a row that did not succeed
      for (int i = 0; i < batch.length; i++) {
        Claimed<T> row = rows.get(i);
        Throwable e = all != null ? all : failed.get(row);
        if (stoppedKeys != null && row.key() != null && stoppedKeys.contains(row.key())) {
          // behind a failed row of its key: sent again after it, whatever the transport did
          batch[i] = new Outcome(row, Outcome.Kind.RELEASED, null, Duration.ZERO, elapsed);
          continue;
        }
        batch[i] =
            e == null
                ? new Outcome(row, Outcome.Kind.SUCCEEDED, null, null, elapsed)
                : failures.failure(row, e, elapsed, !someSent);
        if (e != null && row.key() != null) {
          stoppedKeys = stoppedKeys == null ? new HashSet<>() : stoppedKeys;
          stoppedKeys.add(row.key());
        }
      }
    } finally {
      // whatever happened above, every row gets an outcome and the slot goes to the next delivery
      for (int i = 0; i < batch.length; i++) {
        if (batch[i] == null) {
          batch[i] = FailurePolicy.none(rows.get(i), System.nanoTime() - started);
        }
      }
      sendNanos.add(System.nanoTime() - started);
      sentRows.add(rows.size());
      outcomes.addAll(batch);
      outage.ended(rows.get(0).id());
      slots.finished(thread);
    }
  }

  /** What a thread whose timeout came first did at last: dropped, its row already recorded. */
  private static void dropLate(String what, Throwable error) {
    log.debug(
        "{} ended after its timeout ({}); dropped: the timeout was recorded",
        what,
        error == null ? "returned" : error.getClass().getName());
  }
}

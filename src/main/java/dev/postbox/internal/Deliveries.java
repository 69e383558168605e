package dev.postbox.internal;

import dev.postbox.internal.sql.Claimed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs a lane's deliveries: each row on its own thread with the {@link Deliverer} (the rows of one
 * key, on a table ordered by key, one after another on one thread), or a claim's rows together with
 * the {@link BatchDeliverer}, outside any transaction and without a connection; every row gets
 * exactly one outcome, which goes to the outcome writer. Thread-safe.
 */
final class Deliveries<T> {
  private final Deliverer<T> deliverer;
  private final BatchDeliverer<T> batchDeliverer; // null: one row per delivery
  private final FailurePolicy failures;
  private final OutcomeQueue outcomes;
  private final Outage outage;
  private Runnable keyFreed = () -> {};
  private DeliverySlots<T> slots;
  private volatile ClassLoader contextClassLoader; // the starter's, for every delivery
  // how long the transport or handler took, over every row delivered: whether sends are slow
  private final LongAdder sentRows = new LongAdder();
  private final LongAdder sendNanos = new LongAdder();

  Deliveries(
      Deliverer<T> deliverer,
      BatchDeliverer<T> batchDeliverer,
      FailurePolicy failures,
      OutcomeQueue outcomes,
      Outage outage) {
    this.deliverer = deliverer;
    this.batchDeliverer = batchDeliverer;
    this.failures = failures;
    this.outcomes = outcomes;
    this.outage = outage;
  }

  /**
   * What to run when the run of a key ends (its next message may now be claimed): wakes the claim
   * loop, which would otherwise wait out its idle pause while every key in the backlog is in
   * flight. Set once, before the first claim.
   */
  void onKeyFreed(Runnable keyFreed) {
    this.keyFreed = keyFreed;
  }

  /** The slots the deliveries run in; set once, before the first claim. */
  void runIn(DeliverySlots<T> slots) {
    this.slots = slots;
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
    for (Claimed<T> row : sortedByKey(rows)) {
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
      slots.start(units(deliverable), mayProbe);
    }
  }

  /** {@code rows} in id order if some have a key (the order of their keys), else as claimed. */
  private static <T> List<Claimed<T>> sortedByKey(List<Claimed<T>> rows) {
    for (Claimed<T> row : rows) {
      if (row.key() != null) {
        List<Claimed<T>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(Claimed::id));
        return sorted;
      }
    }
    return rows;
  }

  /**
   * How {@code rows} are delivered: all in one delivery for a batch transport, in id order (so the
   * rows of a key are in their order); else the rows of one key as one run on one thread, in order,
   * and every row without a key on its own.
   */
  List<List<Claimed<T>>> units(List<Claimed<T>> rows) {
    if (batchDeliverer != null) {
      List<Claimed<T>> batch = new ArrayList<>(rows);
      batch.sort(Comparator.comparingLong(Claimed::id));
      return List.of(batch);
    }
    List<List<Claimed<T>>> units = new ArrayList<>(rows.size());
    Map<String, List<Claimed<T>>> runs = null;
    for (Claimed<T> row : rows) { // in id order where there are keys
      if (row.key() == null) {
        units.add(List.of(row));
        continue;
      }
      runs = runs == null ? new HashMap<>() : runs;
      List<Claimed<T>> run = runs.get(row.key());
      if (run == null) {
        run = new ArrayList<>();
        runs.put(row.key(), run);
        units.add(run);
      }
      run.add(row);
    }
    return units;
  }

  /** What the delivery thread of {@code rows} runs. */
  Runnable task(List<Claimed<T>> rows) {
    return batchDeliverer != null ? () -> deliverBatch(rows) : () -> deliverRun(rows, 0);
  }

  /**
   * Delivers row {@code i} of {@code rows} (one row, or a run of one key), then passes the slot to
   * a fresh thread for the next row, so that rows go one after another and no thread-local set by
   * one send reaches the next. A row that does not succeed ends the run: the rows after it are
   * handed back without counting an attempt, as they are if the lane stops or an outage starts.
   */
  private void deliverRun(List<Claimed<T>> rows, int i) {
    boolean passed = false;
    int next = i + 1;
    try {
      Thread.currentThread().setContextClassLoader(contextClassLoader);
      Outcome outcome = deliver(rows.get(i));
      passed =
          outcome.kind() == Outcome.Kind.SUCCEEDED
              && next < rows.size()
              && !outage.active()
              && slots.passOn(() -> deliverRun(rows, next));
    } finally {
      // whatever happened above, every row gets an outcome and the slot goes on or back
      if (!passed) {
        for (int j = next; j < rows.size(); j++) {
          outcomes.add(new Outcome(rows.get(j), Outcome.Kind.RELEASED, null, Duration.ZERO, 0));
          outage.ended(rows.get(j).id());
        }
        slots.finished();
        if (rows.get(0).key() != null) {
          keyFreed.run();
        }
      }
    }
  }

  /** Delivers one row and records its outcome. */
  private Outcome deliver(Claimed<T> row) {
    long started = System.nanoTime();
    Outcome outcome = null;
    try {
      if (row.defect() != null) {
        throw new ParkNow(row.defect());
      }
      deliverer.deliver(row);
      outcome = new Outcome(row, Outcome.Kind.SUCCEEDED, null, null, System.nanoTime() - started);
      outage.succeeded();
    } catch (Throwable e) {
      outcome = failures.failure(row, e, System.nanoTime() - started, true);
    } finally {
      // whatever happened above, the row gets an outcome
      if (outcome == null) {
        outcome = FailurePolicy.none(row, System.nanoTime() - started);
      }
      sendNanos.add(System.nanoTime() - started);
      sentRows.increment();
      outcomes.add(outcome);
      outage.ended(row.id());
    }
    return outcome;
  }

  /**
   * Delivers {@code rows} in one call of the batch deliverer. Failures of single rows while others
   * went through are no sign of an outage; a failure of the whole batch is, as for single rows.
   */
  private void deliverBatch(List<Claimed<T>> rows) {
    long started = System.nanoTime();
    Outcome[] batch = new Outcome[rows.size()];
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
      slots.finished();
    }
  }
}

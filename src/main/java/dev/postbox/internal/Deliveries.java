package dev.postbox.internal;

import dev.postbox.internal.sql.Claimed;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs a lane's deliveries: each row on its own thread with the {@link Deliverer}, or a claim's
 * rows together with the {@link BatchDeliverer}, outside any transaction and without a connection;
 * every row gets exactly one outcome, which goes to the outcome writer. Thread-safe.
 */
final class Deliveries<T> {
  private final Deliverer<T> deliverer;
  private final BatchDeliverer<T> batchDeliverer; // null: one row per delivery
  private final FailurePolicy failures;
  private final OutcomeQueue outcomes;
  private final Outage outage;
  private DeliverySlots<T> slots;
  private volatile ClassLoader contextClassLoader; // the starter's, for every delivery

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

  /** The slots the deliveries run in; set once, before the first claim. */
  void runIn(DeliverySlots<T> slots) {
    this.slots = slots;
  }

  /** Every delivery runs with the context class loader of the thread that calls this. */
  void started() {
    contextClassLoader = Thread.currentThread().getContextClassLoader();
  }

  /** Starts the deliveries of a claim's rows, parking those that must not be delivered. */
  void startAll(List<Claimed<T>> rows) {
    List<Claimed<T>> deliverable = new ArrayList<>(rows.size());
    for (Claimed<T> row : rows) {
      Outcome refused = failures.refuse(row, batchDeliverer != null);
      if (refused != null) {
        outage.ended(row.id()); // never delivered: a probe that is not sent is no probe
        outcomes.add(refused);
      } else {
        deliverable.add(row);
      }
    }
    if (!deliverable.isEmpty()) {
      slots.start(deliverable, batchDeliverer != null);
    }
  }

  /** What the delivery thread of {@code rows} runs. */
  Runnable task(List<Claimed<T>> rows) {
    return batchDeliverer != null ? () -> deliverBatch(rows) : () -> deliver(rows.get(0));
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
      outcome = failures.failure(row, e, System.nanoTime() - started, true);
    } finally {
      // whatever happened above, the row gets an outcome and the slot goes to the next row or back
      outcomes.add(
          outcome != null ? outcome : FailurePolicy.none(row, System.nanoTime() - started));
      outage.ended(row.id());
      slots.finished();
    }
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
      for (int i = 0; i < batch.length; i++) {
        Claimed<T> row = rows.get(i);
        Throwable e = all != null ? all : failed.get(row);
        batch[i] =
            e == null
                ? new Outcome(row, Outcome.Kind.SUCCEEDED, null, null, elapsed)
                : failures.failure(row, e, elapsed, !someSent);
      }
    } finally {
      // whatever happened above, every row gets an outcome and the slot goes to the next delivery
      for (int i = 0; i < batch.length; i++) {
        if (batch[i] == null) {
          batch[i] = FailurePolicy.none(rows.get(i), System.nanoTime() - started);
        }
      }
      outcomes.addAll(batch);
      outage.ended(rows.get(0).id());
      slots.finished();
    }
  }
}

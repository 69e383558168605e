package dev.postbox.bench;

import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import java.time.Duration;
import java.util.List;

/** Postbox's W1 contestants: how each configures the dispatcher and its transport. */
public enum DrainVariant {
  /** The run's batch size and concurrency (Postbox's defaults unless overridden), no-op send. */
  DEFAULTS("defaults"),
  /** The setting the docs give for large backlogs: the defaults with concurrency 64. */
  LARGE("large backlog") {
    @Override
    Dispatcher.Builder configure(Dispatcher.Builder b) {
      return b.concurrency(64);
    }
  },
  /** Defaults with a {@code BatchTransport} (outbox only). */
  SEND_BATCH("sendBatch"),
  /** Concurrency 64 and a {@code send} (or job) that waits 1 ms: I/O-bound, like a broker. */
  SLOW_SEND("1 ms sends") {
    @Override
    Dispatcher.Builder configure(Dispatcher.Builder b) {
      return b.concurrency(SLOW_SEND_CONCURRENCY).claimsInFlight(4);
    }
  },
  /**
   * Defaults with {@code keepDelivered(1 h)} (outbox only): each delivered row is kept as done, an
   * UPDATE instead of a DELETE; {@link KeptCleanup} times the cleanup's DELETE of them after.
   */
  KEEP_DELIVERED("keepDelivered 1 h") {
    @Override
    Outbox.Builder configure(Outbox.Builder b) {
      return b.keepDelivered(Duration.ofHours(1));
    }
  };

  /**
   * The published run's contestants: {@link #KEEP_DELIVERED} only when asked for ({@code
   * -Dbench.variants=defaults,keep_delivered}), as it would lengthen the run by a drain and a
   * cleanup per repetition.
   */
  static final List<DrainVariant> PUBLISHED = List.of(DEFAULTS, LARGE, SEND_BATCH, SLOW_SEND);

  /** The concurrency of {@link #SLOW_SEND}. */
  static final int SLOW_SEND_CONCURRENCY = 64;

  private final String label;

  DrainVariant(String label) {
    this.label = label;
  }

  String label() {
    return label;
  }

  /** The run's builder with this variant's settings applied. */
  Dispatcher.Builder configure(Dispatcher.Builder b) {
    return b;
  }

  /** The outbox's builder with this variant's settings applied. */
  Outbox.Builder configure(Outbox.Builder b) {
    return b;
  }

  /** True if this variant runs on the outbox only (the job queue has no such setting). */
  boolean outboxOnly() {
    return this == SEND_BATCH || this == KEEP_DELIVERED;
  }
}

package dev.postbox.bench;

import dev.postbox.Dispatcher;

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
  };

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
}

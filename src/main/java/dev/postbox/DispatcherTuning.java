package dev.postbox;

import dev.postbox.internal.Listeners;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import java.time.Duration;

/**
 * The options of {@link Dispatcher.Builder} that say how a dispatcher runs what it is given: claim
 * sizes, concurrency, timing, retries, its instance id, hooks and the dialect. They and their
 * Javadoc are the public reference of these settings; {@link DispatcherBuilder}, the only subclass,
 * holds what the dispatcher runs and builds it.
 */
abstract sealed class DispatcherTuning permits DispatcherBuilder {
  // not private: DispatcherBuilder.build() copies them into the dispatcher's settings
  int batchSize = 500;
  int concurrency = 16;
  int claimsInFlight = 2;
  Duration pollInterval = Duration.ofSeconds(1);
  Duration lease = Duration.ofMinutes(2);
  Duration sendTimeout = Duration.ofMinutes(1);
  int maxAttempts = 10;
  Backoff backoff = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(10));
  String instanceId; // null: a new one for each built dispatcher
  Duration shutdownTimeout = Duration.ofSeconds(30);
  Duration cleanupInterval = Duration.ofMinutes(1);
  int vacuumEvery = 50_000;
  Listener listener = Listeners.NONE;
  Database database;

  /**
   * Rows claimed per round trip, 1 to 10,000; default 500. A lane holds at most about {@code
   * (claimsInFlight + 1) × batchSize} claimed rows plus those being delivered, so lower it for
   * large payloads.
   *
   * @param batchSize the most rows per claim
   * @return this builder
   * @throws InvalidValueException if the size is out of range
   */
  public Dispatcher.Builder batchSize(int batchSize) {
    this.batchSize = Require.between("batchSize", batchSize, 1, 10_000);
    return self();
  }

  /**
   * Deliveries running at once per table, 1 to 10,000; default 16. A delivery is one message or
   * job, the run of one key's messages on an outbox ordered by key, or one batch for a transport
   * that is a {@link BatchTransport}.
   *
   * @param concurrency the most deliveries running at once per table
   * @return this builder
   * @throws InvalidValueException if the number is out of range
   */
  public Dispatcher.Builder concurrency(int concurrency) {
    this.concurrency = Require.between("concurrency", concurrency, 1, 10_000);
    return self();
  }

  /**
   * Claims per table at once while claims come back full, 1 to 64; default 2. An idle table has one
   * claim at a time; SQLite always has one. How the extra claims behave: docs/operations.md.
   *
   * @param claimsInFlight the most claims per table at once
   * @return this builder
   * @throws InvalidValueException if the number is out of range
   */
  public Dispatcher.Builder claimsInFlight(int claimsInFlight) {
    this.claimsInFlight = Require.between("claimsInFlight", claimsInFlight, 1, 64);
    return self();
  }

  /**
   * Longest wait after a claim found nothing, 10 ms to 1 h; default 1 s. After a claim that found
   * rows the first empty claim waits 1 ms, each further one twice as long up to this. {@link
   * Dispatcher#wakeUp()} cuts it short.
   *
   * @param pollInterval the longest wait between empty claims
   * @return this builder
   * @throws InvalidValueException if the interval is null or out of range
   */
  public Dispatcher.Builder pollInterval(Duration pollInterval) {
    this.pollInterval =
        Require.between("pollInterval", pollInterval, Duration.ofMillis(10), Duration.ofHours(1));
    return self();
  }

  /**
   * How long a claim holds a row before another instance may take it over, 1 s to 1 day; default 2
   * min. Renewed every third of it while the row is held, so long deliveries keep their rows.
   *
   * @param lease how long a claim holds a row without renewal
   * @return this builder
   * @throws InvalidValueException if the lease is null or out of range
   */
  public Dispatcher.Builder lease(Duration lease) {
    this.lease = Require.between("lease", lease, Duration.ofSeconds(1), Duration.ofDays(1));
    return self();
  }

  /**
   * How long one {@link Transport#send} (or one {@link BatchTransport#sendBatch}, as a whole) may
   * run, 1 s to 1 day; default 1 min. A send still running then is interrupted and counts as a
   * failed attempt with a {@link java.util.concurrent.TimeoutException}; what follows:
   * docs/outbox.md.
   *
   * @param sendTimeout the longest a send may run
   * @return this builder
   * @throws InvalidValueException if the timeout is null or out of range
   */
  public Dispatcher.Builder sendTimeout(Duration sendTimeout) {
    this.sendTimeout =
        Require.between("sendTimeout", sendTimeout, Duration.ofSeconds(1), Duration.ofDays(1));
    return self();
  }

  /**
   * Delivery attempts of an outbox message before it is parked, 1 to 1,000; default 10. (Jobs carry
   * their own limit, set by {@link Jobs.Builder#maxAttempts} or {@link Job#maxAttempts}.)
   *
   * @param maxAttempts the attempt limit of outbox messages
   * @return this builder
   * @throws InvalidValueException if the limit is out of range
   */
  public Dispatcher.Builder maxAttempts(int maxAttempts) {
    this.maxAttempts = Require.between("maxAttempts", maxAttempts, 1, 1_000);
    return self();
  }

  /**
   * Delay after a failed attempt; default exponential from 1 s, capped at 10 min, with jitter. Used
   * for outbox messages and jobs alike.
   *
   * @param backoff the delay after each failed attempt
   * @return this builder
   * @throws InvalidValueException if {@code backoff} is null
   */
  public Dispatcher.Builder backoff(Backoff backoff) {
    this.backoff = Require.notNull("backoff", backoff);
    return self();
  }

  /**
   * Written to {@code leased_by}; 1 to 100 characters, no control characters, no leading or
   * trailing whitespace; default {@code postbox-<pid>-<random>}.
   *
   * @param instanceId the instance id; give each running dispatcher its own
   * @return this builder
   * @throws InvalidValueException if the id breaks the rules
   */
  public Dispatcher.Builder instanceId(String instanceId) {
    this.instanceId = Rules.id("instanceId", instanceId, 100);
    return self();
  }

  /**
   * How long {@code close()} waits for running deliveries, per table, before it interrupts them, 0
   * to 1 h; default 30 s.
   *
   * @param shutdownTimeout the wait per table
   * @return this builder
   * @throws InvalidValueException if the timeout is null or out of range
   */
  public Dispatcher.Builder shutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout =
        Require.between("shutdownTimeout", shutdownTimeout, Duration.ZERO, Duration.ofHours(1));
    return self();
  }

  /**
   * How often finished rows past their retention are deleted, 10 ms to 1 day; default 1 min.
   *
   * @param cleanupInterval the time between two cleanups
   * @return this builder
   * @throws InvalidValueException if the interval is null or out of range
   */
  public Dispatcher.Builder cleanupInterval(Duration cleanupInterval) {
    this.cleanupInterval =
        Require.between(
            "cleanupInterval", cleanupInterval, Duration.ofMillis(10), Duration.ofDays(1));
    return self();
  }

  /**
   * On PostgreSQL, runs {@code VACUUM (ANALYZE)} on a table after this many of its rows finished, 0
   * to 100,000,000, 0 for never; default 50,000. Dead entries at the head of the claim index
   * otherwise slow every claim of a long drain until autovacuum comes by. Needs the table's owner;
   * if refused, logged once and not tried again.
   *
   * @param rows the finished rows between two vacuums, or 0 for never
   * @return this builder
   * @throws InvalidValueException if the number is out of range
   */
  public Dispatcher.Builder vacuumEvery(int rows) {
    this.vacuumEvery = Require.between("vacuumEvery", rows, 0, 100_000_000);
    return self();
  }

  /**
   * Metrics and tracing hooks; default none.
   *
   * @param listener the listener, called from the dispatcher's threads
   * @return this builder
   * @throws InvalidValueException if {@code listener} is null
   */
  public Dispatcher.Builder listener(Listener listener) {
    this.listener = Require.notNull("listener", listener);
    return self();
  }

  /**
   * Forces the SQL dialect instead of detecting it from the database's metadata.
   *
   * @param database the database the data source is taken to be
   * @return this builder
   * @throws InvalidValueException if {@code database} is null
   */
  public Dispatcher.Builder database(Database database) {
    this.database = Require.notNull("database", database);
    return self();
  }

  /** This builder, as the type its options return. */
  final Dispatcher.Builder self() {
    return (Dispatcher.Builder) this;
  }
}

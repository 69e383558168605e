package dev.postbox;

import dev.postbox.internal.Listeners;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.recurring.RecurringJobs;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The options of {@link Dispatcher.Builder}, in a file of their own: they and their Javadoc are the
 * public reference of every dispatcher setting. Only {@link Dispatcher.Builder} extends it.
 */
abstract sealed class DispatcherBuilder permits Dispatcher.Builder {
  private final DataSource dataSource;
  private Outbox outbox;
  private Transport transport;
  private Jobs jobs;
  private Inbox inbox;
  private Map<String, JobHandler> handlers = Map.of();
  private final Map<String, RecurringJobs.Declared> recurring = new LinkedHashMap<>();
  private int batchSize = 500;
  private int concurrency = 16;
  private int claimsInFlight = 2;
  private Duration pollInterval = Duration.ofSeconds(1);
  private Duration lease = Duration.ofMinutes(2);
  private Duration sendTimeout = Duration.ofMinutes(1);
  private int maxAttempts = 10;
  private Backoff backoff = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(10));
  private String instanceId; // null: a new one for each built dispatcher
  private Duration shutdownTimeout = Duration.ofSeconds(30);
  private Duration cleanupInterval = Duration.ofMinutes(1);
  private int vacuumEvery = 50_000;
  private Listener listener = Listeners.NONE;
  private Database database;

  DispatcherBuilder(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Delivers {@code outbox}'s messages to {@code transport}: one {@link Transport#send} per
   * message, or each claim's rows in one {@link BatchTransport#sendBatch} if it is a {@link
   * BatchTransport}.
   *
   * <p>A dispatcher delivers one outbox: a second call is refused (build a dispatcher per outbox
   * table).
   *
   * @param outbox the outbox whose table is dispatched
   * @param transport where its messages are sent
   * @return this builder
   * @throws InvalidValueException if an argument is null, or an outbox was already set
   */
  public Dispatcher.Builder outbox(Outbox outbox, Transport transport) {
    onlyOnce("outbox", this.outbox, "one outbox: build a dispatcher per outbox table");
    Require.notNull("outbox", outbox);
    this.transport = Require.notNull("transport", transport);
    this.outbox = outbox;
    return self();
  }

  /**
   * Runs {@code jobs} with {@code handlers}, one per job name. The dispatcher claims only jobs of
   * these names; jobs of other names wait for a dispatcher that has their handler (and are reported
   * through {@link Listener#jobsWithoutHandler} once due for longer than a lease). A dispatcher
   * runs one job queue: pass every handler to one call.
   *
   * @param jobs the job queue whose table is dispatched
   * @param handlers the handlers, at most one per job name
   * @return this builder
   * @throws InvalidValueException if an argument or a handler is null, there is no handler, a
   *     handler's name breaks the job name rules, two handlers have the same name, or a job queue
   *     was already set
   */
  public Dispatcher.Builder jobs(Jobs jobs, JobHandler... handlers) {
    onlyOnce(
        "jobs",
        this.jobs,
        "one job queue: pass every handler to one jobs(...) call, or build a dispatcher per"
            + " job table");
    Require.notNull("jobs", jobs);
    Map<String, JobHandler> byName = new LinkedHashMap<>();
    for (JobHandler handler : Require.notNull("handlers", handlers)) {
      Require.notNull("handler", handler);
      String name = Rules.name("handler name", handler.name());
      if (byName.putIfAbsent(name, handler) != null) {
        throw new InvalidValueException("handlers", "has two handlers for job name '" + name + "'");
      }
    }
    if (byName.isEmpty()) {
      throw new InvalidValueException(
          "handlers",
          "is empty: a dispatcher claims only the job names it has a handler for, so it would"
              + " run no job");
    }
    this.jobs = jobs;
    this.handlers = Map.copyOf(byName);
    return self();
  }

  /**
   * Runs the job {@code name} with {@code payload} on {@code schedule}: once per tick across all
   * dispatchers that declare it, as an ordinary durable job of that name (its handler is the one
   * given to {@code jobs(…)}; same retries, parking, listener and stats), with the tick in its
   * {@link JobContext#tick()}, judged by the database clock. Overlapping and missed ticks, and
   * schedules changed between starts: docs/jobs.md.
   *
   * @param schedule when the job runs
   * @param name the job name of its runs; its handler must be given to {@code jobs(…)}
   * @param payload the payload of each run
   * @return this builder
   * @throws InvalidValueException if an argument is null or breaks the job name rules, or the name
   *     was already given a schedule
   */
  public Dispatcher.Builder recurring(Schedule schedule, String name, String payload) {
    Require.notNull("schedule", schedule);
    Rules.name("name", name);
    Require.notNull("payload", payload);
    if (recurring.putIfAbsent(name, new RecurringJobs.Declared(schedule.rule(), name, payload))
        != null) {
      throw new InvalidValueException("recurring", "has two schedules for job name '" + name + "'");
    }
    return self();
  }

  /**
   * Deletes {@code inbox} rows older than its retention, every {@code cleanupInterval}. A
   * dispatcher cleans up one inbox: a second call is refused.
   *
   * @param inbox the inbox whose table is cleaned up
   * @return this builder
   * @throws InvalidValueException if {@code inbox} is null, or an inbox was already set
   */
  public Dispatcher.Builder inbox(Inbox inbox) {
    onlyOnce("inbox", this.inbox, "one inbox: build a dispatcher per inbox table");
    this.inbox = Require.notNull("inbox", inbox);
    return self();
  }

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

  /**
   * A dispatcher with these options, copied: changing this builder later changes nothing built.
   * Each dispatcher built without an {@code instanceId} gets its own. It does nothing until {@link
   * Dispatcher#start()}.
   *
   * @return the dispatcher, not started
   * @throws InvalidValueException if none of outbox, jobs and inbox is set, a recurring job has no
   *     handler or a payload the job queue refuses (over its limit, or with a NUL character), or
   *     the schedules table's name (the job table's plus {@code _schedules}) would be longer than
   *     63 characters
   */
  public Dispatcher build() {
    if (outbox == null && jobs == null && inbox == null) {
      throw new InvalidValueException(
          "outbox", "jobs or inbox must be set: give the dispatcher something to do");
    }
    // a job table's name leaves room for its _schedules table: Jobs.Builder.table checks it
    for (RecurringJobs.Declared d : recurring.values()) {
      if (jobs == null || !handlers.containsKey(d.name())) {
        throw new InvalidValueException(
            "recurring",
            "job '" + d.name() + "' has no handler: pass one with that name to jobs(...)");
      }
      Rules.payload(d.payload(), jobs.payloadLimit());
    }
    return new Dispatcher(
        new DispatcherSettings(
            dataSource,
            outbox,
            transport,
            jobs,
            inbox,
            handlers,
            Map.copyOf(recurring),
            batchSize,
            concurrency,
            claimsInFlight,
            pollInterval,
            lease,
            sendTimeout,
            maxAttempts,
            backoff,
            instanceId != null ? instanceId : defaultInstanceId(),
            shutdownTimeout,
            cleanupInterval,
            vacuumEvery,
            listener,
            database));
  }

  // a second table of a kind would silently replace the first, whose rows would then wait
  // forever (or, for jobs, be parked for want of a handler)
  private static void onlyOnce(String option, Object current, String why) {
    if (current != null) {
      throw new InvalidValueException(option, "was already set: a dispatcher runs " + why);
    }
  }

  private static String defaultInstanceId() {
    byte[] random = new byte[3];
    ThreadLocalRandom.current().nextBytes(random);
    return "postbox-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
  }

  private Dispatcher.Builder self() {
    return (Dispatcher.Builder) this;
  }
}

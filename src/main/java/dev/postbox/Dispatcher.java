package dev.postbox;

import dev.postbox.internal.BatchDeliverer;
import dev.postbox.internal.Cleanup;
import dev.postbox.internal.Deliverer;
import dev.postbox.internal.Lane;
import dev.postbox.internal.LaneSettings;
import dev.postbox.internal.Listeners;
import dev.postbox.internal.Periodic;
import dev.postbox.internal.PostgresNotifications;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.Startup;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.internal.sql.QueueTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers what the outbox and the job queue stored: claims due rows in batches with a lease on the
 * database clock, runs each delivery on a virtual thread outside any transaction, records the
 * outcome fenced by the lease, retries with backoff and parks after the last attempt.
 *
 * <p>Thread-safe. Every application instance may run one; leases share the work. Connections are
 * borrowed from the {@link DataSource} per operation and never held while a message is delivered.
 */
public final class Dispatcher implements AutoCloseable {
  // Longer than most files here because the Builder's options and their Javadoc are the public
  // reference of every dispatcher setting; the engine itself is in dev.postbox.internal.
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  private final DispatcherSettings config;
  private final ReentrantLock lifecycle = new ReentrantLock();
  private volatile List<Lane<?>> lanes = List.of(); // published whole: wakeUp() reads it
  private volatile boolean started;
  private volatile boolean closed;
  private Periodic inboxCleaner;
  private RecurringJobs recurring;
  private PostgresNotifications notifications;

  private Dispatcher(DispatcherSettings config) {
    this.config = config;
  }

  /** A builder for a dispatcher that borrows its connections from {@code dataSource}. */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Require.notNull("dataSource", dataSource));
  }

  /** This dispatcher's instance id, written to {@code leased_by} of the rows it claims. */
  public String instanceId() {
    return config.instanceId();
  }

  /**
   * Detects the database (or uses the forced one), checks the tables exist, and starts claiming.
   *
   * @throws PostboxException if a table is missing or the database cannot be reached
   * @throws IllegalStateException if already started or closed
   */
  public void start() {
    lifecycle.lock();
    try {
      if (started || closed) {
        throw new IllegalStateException(
            config.instanceId() + " - dispatcher already " + (closed ? "closed" : "started"));
      }
      Database database =
          Startup.database(config.dataSource(), config.database(), config.instanceId());
      Dialect dialect = Dialects.of(database);
      Map<String, Runnable> channels = new HashMap<>();
      List<Lane<?>> built = new ArrayList<>();
      if (config.outbox() != null) {
        Transport transport = config.transport();
        Lane<?> lane =
            lane(
                database,
                dialect,
                config.outbox().queueTable(),
                settings(config.maxAttempts(), Duration.ZERO, true),
                TransportDelivery.single(transport),
                TransportDelivery.batches(transport));
        built.add(lane);
        if (config.outbox().notifies()) {
          channels.put(PostgresNotifications.channel(lane.table()), lane::wakeUp);
        }
      }
      RecurringJobs schedules = null;
      if (config.jobs() != null) {
        Lane<?> lane =
            lane(
                database,
                dialect,
                config.jobs().queueTable(),
                settings(config.maxAttempts(), config.jobs().retention(), false),
                JobDelivery.to(config.handlers(), config.instanceId()),
                null);
        built.add(lane);
        if (config.jobs().notifies()) {
          channels.put(PostgresNotifications.channel(lane.table()), lane::wakeUp);
        }
        if (!config.recurring().isEmpty()) {
          schedules =
              new RecurringJobs(
                  config.dataSource(),
                  dialect,
                  lane.table(),
                  config.recurring(),
                  config.jobs().maxAttempts(),
                  config.pollInterval(),
                  lane::wakeUp,
                  config.instanceId());
          Startup.checkColumns(
              config.dataSource(),
              database,
              schedules.table(),
              "name, schedule, payload, next_tick, last_tick, last_run, updated_at");
        }
      }
      Periodic cleaner = config.inbox() == null ? null : inboxCleaner(database);
      // every check passed: from here on, start things
      lanes = List.copyOf(built);
      if (cleaner != null) {
        inboxCleaner = cleaner;
        inboxCleaner.start();
      }
      if (!channels.isEmpty() && database == Database.POSTGRESQL) {
        notifications =
            new PostgresNotifications(config.dataSource(), channels, config.instanceId());
        notifications.start();
      }
      for (Lane<?> lane : lanes) {
        lane.start();
      }
      if (schedules != null) {
        recurring = schedules;
        recurring.start();
      }
      started = true;
      log.info(
          "{} - started on {}: {} (batch {}, concurrency {}, claims in flight up to {}, poll {} ms,"
              + " lease {} s{})",
          config.instanceId(),
          database,
          lanes.stream().map(Lane::table).toList(),
          config.batchSize(),
          config.concurrency(),
          config.claimsInFlight(),
          config.pollInterval().toMillis(),
          config.lease().toSeconds(),
          notifications == null ? "" : ", LISTEN " + channels.keySet());
    } finally {
      lifecycle.unlock();
    }
  }

  private <T> Lane<T> lane(
      Database database,
      Dialect dialect,
      QueueTable<T> table,
      LaneSettings settings,
      Deliverer<T> deliverer,
      BatchDeliverer<T> batchDeliverer) {
    String columns = Startup.QUEUE_COLUMNS + ", " + table.itemColumns();
    if (!table.checkedColumns().isEmpty()) {
      columns += ", " + table.checkedColumns();
    }
    Startup.checkColumns(config.dataSource(), database, table.name(), columns);
    if (table.keyOrder() != null) {
      Startup.checkKeysTable(config.dataSource(), database, table.name());
    }
    return new Lane<>(config.dataSource(), dialect, table, settings, deliverer, batchDeliverer);
  }

  private Periodic inboxCleaner(Database database) {
    Inbox inbox = config.inbox();
    Startup.checkColumns(config.dataSource(), database, inbox.table(), InboxRows.ALL);
    return Cleanup.inbox(
        config.dataSource(),
        database,
        inbox.table(),
        inbox.retention(),
        config.cleanupInterval(),
        config.instanceId(),
        () -> closed);
  }

  /**
   * Ends the current poll wait at once; call after committing a transaction that added messages or
   * jobs so they are delivered without waiting for the poll interval. Cheap; safe from any thread.
   */
  public void wakeUp() {
    for (Lane<?> lane : lanes) {
      lane.wakeUp();
    }
  }

  /**
   * Stops claiming, waits up to {@code shutdownTimeout} for running deliveries, hands rows claimed
   * but not started back (due at once for any instance), then interrupts what is still running.
   * Idempotent.
   */
  @Override
  public void close() {
    lifecycle.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      // each part is closed even if the caller is interrupted meanwhile; the interrupt is kept,
      // and every lane closed after it hurries (interrupts its deliveries at once)
      boolean interrupted = Thread.interrupted();
      if (recurring != null) {
        interrupted |= recurring.close();
      }
      if (notifications != null) {
        interrupted |= notifications.close();
      }
      for (Lane<?> lane : lanes) {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
        lane.close();
        interrupted |= Thread.interrupted();
      }
      if (inboxCleaner != null) {
        interrupted |= inboxCleaner.close();
      }
      if (interrupted) {
        log.warn(
            "{} - interrupted while closing: running deliveries were interrupted at once",
            config.instanceId());
        Thread.currentThread().interrupt();
      }
      if (started) {
        log.info("{} - stopped", config.instanceId());
      }
    } finally {
      lifecycle.unlock();
    }
  }

  private LaneSettings settings(int maxAttempts, Duration retention, boolean detectOutage) {
    return new LaneSettings(
        config.instanceId(),
        config.batchSize(),
        config.concurrency(),
        config.claimsInFlight(),
        config.pollInterval(),
        config.lease(),
        maxAttempts,
        config.backoff(),
        retention,
        config.cleanupInterval(),
        config.vacuumEvery(),
        detectOutage,
        config.shutdownTimeout(),
        config.listener());
  }

  /** Configures a {@link Dispatcher}; each option is validated as it is set. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private Outbox outbox;
    private Transport transport;
    private Jobs jobs;
    private Inbox inbox;
    private Map<String, JobHandler> handlers = Map.of();
    private final Map<String, RecurringJobs.Declared> recurring = new LinkedHashMap<>();
    private int batchSize = 100;
    private int concurrency = 16;
    private int claimsInFlight = 1;
    private Duration pollInterval = Duration.ofSeconds(1);
    private Duration lease = Duration.ofMinutes(2);
    private int maxAttempts = 10;
    private Backoff backoff = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(10));
    private String instanceId; // null: a new one for each built dispatcher
    private Duration shutdownTimeout = Duration.ofSeconds(30);
    private Duration cleanupInterval = Duration.ofMinutes(1);
    private int vacuumEvery = 50_000;
    private Listener listener = Listeners.NONE;
    private Database database;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * Delivers {@code outbox}'s messages to {@code transport}: one {@link Transport#send} per
     * message, or each claim's rows in one {@link Transport#sendBatch} if the transport's class
     * overrides it.
     */
    public Builder outbox(Outbox outbox, Transport transport) {
      this.outbox = Require.notNull("outbox", outbox);
      this.transport = Require.notNull("transport", transport);
      return this;
    }

    /**
     * Runs {@code jobs} with {@code handlers}, one per job name. A job whose name has no handler
     * here is parked at once with that reason.
     */
    public Builder jobs(Jobs jobs, JobHandler... handlers) {
      this.jobs = Require.notNull("jobs", jobs);
      Map<String, JobHandler> byName = new LinkedHashMap<>();
      for (JobHandler handler : Require.notNull("handlers", handlers)) {
        Require.notNull("handler", handler);
        String name = Rules.name("handler name", handler.name());
        if (byName.putIfAbsent(name, handler) != null) {
          throw new InvalidValueException(
              "handlers", "has two handlers for job name '" + name + "'");
        }
      }
      this.handlers = Map.copyOf(byName);
      return this;
    }

    /**
     * Runs the job {@code name} with {@code payload} on {@code schedule}: once per tick across all
     * dispatchers that declare it, as an ordinary durable job of that name (its handler is the one
     * given to {@link #jobs}; same retries, parking, listener and stats), with the tick in its
     * {@link JobContext#tick()}. Ticks are judged by the database clock. A run still unfinished
     * when the next tick comes delays that tick until it ends; ticks missed meanwhile, or while
     * every dispatcher was down, make one run, and the schedule goes on with its next tick after
     * now. At start, a schedule stored with another expression, zone or payload is updated (logged
     * at INFO) and its next tick computed again.
     *
     * @throws InvalidValueException if an argument is null or breaks the job name rules, or the
     *     name was already given a schedule
     */
    public Builder recurring(Schedule schedule, String name, String payload) {
      Require.notNull("schedule", schedule);
      Rules.name("name", name);
      Require.notNull("payload", payload);
      if (recurring.putIfAbsent(name, new RecurringJobs.Declared(schedule, name, payload))
          != null) {
        throw new InvalidValueException(
            "recurring", "has two schedules for job name '" + name + "'");
      }
      return this;
    }

    /** Deletes {@code inbox} rows older than its retention, every {@code cleanupInterval}. */
    public Builder inbox(Inbox inbox) {
      this.inbox = Require.notNull("inbox", inbox);
      return this;
    }

    /** Rows claimed per round trip, 1 to 10,000; default 100. */
    public Builder batchSize(int batchSize) {
      this.batchSize = Require.between("batchSize", batchSize, 1, 10_000);
      return this;
    }

    /** Deliveries running at once per table, 1 to 10,000; default 16. */
    public Builder concurrency(int concurrency) {
      this.concurrency = Require.between("concurrency", concurrency, 1, 10_000);
      return this;
    }

    /**
     * Claims per table at once while claims come back full, 1 to 64; default 1. With more than one,
     * an idle or lightly loaded table still has one claim at a time; when a claim takes a whole
     * batch, rows are waiting beyond it and up to this many claims run at once, each on its own
     * pooled connection, so a backlog drains at the speed of several connections (see the
     * performance guide for the measured effect). At most this many batches wait for a delivery
     * slot. Extra claims stop at the first failed delivery until the next success; rows they
     * claimed before a transport outage began are handed back, so the outage's first probes may not
     * take the messages their turn would. On SQLite (one writer) claims are always one at a time.
     */
    public Builder claimsInFlight(int claimsInFlight) {
      this.claimsInFlight = Require.between("claimsInFlight", claimsInFlight, 1, 64);
      return this;
    }

    /**
     * Longest wait after a claim found nothing, 10 ms to 1 h; default 1 s. After a claim that found
     * rows the first empty claim waits 1 ms, each further one twice as long up to this. {@link
     * Dispatcher#wakeUp()} cuts it short.
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval =
          Require.between("pollInterval", pollInterval, Duration.ofMillis(10), Duration.ofHours(1));
      return this;
    }

    /**
     * How long a claim holds a row before another instance may take it over, 1 s to 1 day; default
     * 2 min. Renewed every third of it while the row is held, so long deliveries keep their rows.
     */
    public Builder lease(Duration lease) {
      this.lease = Require.between("lease", lease, Duration.ofSeconds(1), Duration.ofDays(1));
      return this;
    }

    /**
     * Delivery attempts of an outbox message before it is parked, 1 to 1,000; default 10. (Jobs
     * carry their own limit, set by {@link Jobs.Builder#maxAttempts} or {@link Job#maxAttempts}.)
     */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = Require.between("maxAttempts", maxAttempts, 1, 1_000);
      return this;
    }

    /**
     * Delay after a failed attempt; default exponential from 1 s, capped at 10 min, with jitter.
     */
    public Builder backoff(Backoff backoff) {
      this.backoff = Require.notNull("backoff", backoff);
      return this;
    }

    /**
     * Written to {@code leased_by}; 1 to 100 characters, no control characters, no leading or
     * trailing whitespace; default {@code postbox-<pid>-<random>}.
     */
    public Builder instanceId(String instanceId) {
      this.instanceId = Rules.id("instanceId", instanceId, 100);
      return this;
    }

    /** How long {@code close()} waits for running deliveries, 0 to 1 h; default 30 s. */
    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout =
          Require.between("shutdownTimeout", shutdownTimeout, Duration.ZERO, Duration.ofHours(1));
      return this;
    }

    /** How often finished rows past their retention are deleted, 10 ms to 1 day; default 1 min. */
    public Builder cleanupInterval(Duration cleanupInterval) {
      this.cleanupInterval =
          Require.between(
              "cleanupInterval", cleanupInterval, Duration.ofMillis(10), Duration.ofDays(1));
      return this;
    }

    /**
     * On PostgreSQL, runs {@code VACUUM (ANALYZE)} on a table after this many of its rows finished,
     * 0 to 100,000,000, 0 for never; default 50,000. Dead entries at the head of the claim index
     * otherwise slow every claim of a long drain until autovacuum comes by. Needs the table's
     * owner; if refused, logged once and not tried again.
     */
    public Builder vacuumEvery(int rows) {
      this.vacuumEvery = Require.between("vacuumEvery", rows, 0, 100_000_000);
      return this;
    }

    /** Metrics and tracing hooks; default none. */
    public Builder listener(Listener listener) {
      this.listener = Require.notNull("listener", listener);
      return this;
    }

    /** Forces the SQL dialect instead of detecting it from the database's metadata. */
    public Builder database(Database database) {
      this.database = Require.notNull("database", database);
      return this;
    }

    /**
     * A dispatcher with these options, copied: changing this builder later changes nothing built.
     * Each dispatcher built without an {@link #instanceId} gets its own. It does nothing until
     * {@link Dispatcher#start()}.
     */
    public Dispatcher build() {
      if (outbox == null && jobs == null && inbox == null) {
        throw new InvalidValueException(
            "outbox", "jobs or inbox must be set: give the dispatcher something to do");
      }
      if (!recurring.isEmpty() && jobs != null) {
        String schedules = jobs.table() + "_schedules";
        if (schedules.length() - schedules.lastIndexOf('.') - 1 > 63) {
          throw new InvalidValueException(
              "recurring",
              "needs the table "
                  + schedules
                  + ", longer than 63 characters: give the job queue a shorter table name");
        }
      }
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
              maxAttempts,
              backoff,
              instanceId != null ? instanceId : defaultInstanceId(),
              shutdownTimeout,
              cleanupInterval,
              vacuumEvery,
              listener,
              database));
    }

    private static String defaultInstanceId() {
      byte[] random = new byte[3];
      ThreadLocalRandom.current().nextBytes(random);
      return "postbox-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
    }
  }
}

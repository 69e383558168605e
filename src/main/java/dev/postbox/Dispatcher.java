package dev.postbox;

import dev.postbox.internal.Claimed;
import dev.postbox.internal.Cleanup;
import dev.postbox.internal.Lane;
import dev.postbox.internal.LaneSettings;
import dev.postbox.internal.Listeners;
import dev.postbox.internal.ParkNow;
import dev.postbox.internal.Periodic;
import dev.postbox.internal.PostgresNotifications;
import dev.postbox.internal.QueueTable;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  private final Settings config;
  private final ReentrantLock lifecycle = new ReentrantLock();
  private volatile List<Lane<?>> lanes = List.of(); // published whole: wakeUp() reads it
  private volatile boolean started;
  private volatile boolean closed;
  private Database database;
  private Periodic inboxCleaner;
  private PostgresNotifications notifications;

  private Dispatcher(Settings config) {
    this.config = config;
  }

  /** The options of one built dispatcher: copied from its builder, never changed after. */
  private record Settings(
      DataSource dataSource,
      Outbox outbox,
      Transport transport,
      Jobs jobs,
      Inbox inbox,
      Map<String, JobHandler> handlers,
      int batchSize,
      int concurrency,
      Duration pollInterval,
      Duration lease,
      int maxAttempts,
      Backoff backoff,
      String instanceId,
      Duration shutdownTimeout,
      Duration cleanupInterval,
      int vacuumEvery,
      Listener listener,
      Database database) {}

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
      Dialect dialect = Dialects.of(database = detect());
      Map<String, Runnable> channels = new HashMap<>();
      List<Lane<?>> built = new ArrayList<>();
      if (config.outbox() != null) {
        Lane<?> lane = outboxLane(dialect);
        built.add(lane);
        if (config.outbox().notifies()) {
          channels.put(PostgresNotifications.channel(lane.table()), lane::wakeUp);
        }
      }
      if (config.jobs() != null) {
        Lane<?> lane = jobsLane(dialect);
        built.add(lane);
        if (config.jobs().notifies()) {
          channels.put(PostgresNotifications.channel(lane.table()), lane::wakeUp);
        }
      }
      Periodic cleaner = config.inbox() == null ? null : inboxCleaner(dialect);
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
      started = true;
      log.info(
          "{} - started on {}: {} (batch {}, concurrency {}, poll {} ms, lease {} s{})",
          config.instanceId(),
          database,
          lanes.stream().map(Lane::table).toList(),
          config.batchSize(),
          config.concurrency(),
          config.pollInterval().toMillis(),
          config.lease().toSeconds(),
          notifications == null ? "" : ", LISTEN " + channels.keySet());
    } finally {
      lifecycle.unlock();
    }
  }

  private Lane<Envelope> outboxLane(Dialect dialect) {
    checkTable(config.outbox().queueTable());
    Transport transport = config.transport();
    return new Lane<>(
        config.dataSource(),
        dialect,
        config.outbox().queueTable(),
        settings(config.maxAttempts(), Duration.ZERO, true),
        row -> transport.send(row.item()),
        sendsBatches(transport) ? rows -> sendBatch(transport, rows) : null);
  }

  /** True if {@code transport}'s class overrides {@link Transport#sendBatch}. */
  private static boolean sendsBatches(Transport transport) {
    try {
      return transport.getClass().getMethod("sendBatch", List.class).getDeclaringClass()
          != Transport.class;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  private static Map<Claimed<Envelope>, Throwable> sendBatch(
      Transport transport, List<Claimed<Envelope>> rows) throws Exception {
    List<Envelope> batch = new ArrayList<>(rows.size());
    for (Claimed<Envelope> row : rows) {
      batch.add(row.item());
    }
    try {
      transport.sendBatch(Collections.unmodifiableList(batch));
      return Map.of();
    } catch (BatchSendException e) {
      Map<String, Exception> byEventId = e.failures();
      Map<Claimed<Envelope>, Throwable> failed = new IdentityHashMap<>();
      for (Claimed<Envelope> row : rows) {
        Exception cause = byEventId.get(row.item().eventId());
        if (cause != null) {
          failed.put(row, cause);
        }
      }
      if (failed.isEmpty()) {
        throw e; // names none of this batch: it all failed
      }
      return failed;
    }
  }

  private Lane<Jobs.JobRun> jobsLane(Dialect dialect) {
    checkTable(config.jobs().queueTable());
    Map<String, JobHandler> handlers = config.handlers();
    String instance = config.instanceId();
    return new Lane<>(
        config.dataSource(),
        dialect,
        config.jobs().queueTable(),
        settings(config.maxAttempts(), config.jobs().retention(), false),
        row -> {
          JobHandler handler = handlers.get(row.item().name());
          if (handler == null) {
            throw new ParkNow(
                "no handler for job name '"
                    + row.item().name()
                    + "' on "
                    + instance
                    + " (registered: "
                    + handlers.keySet()
                    + ")");
          }
          handler.execute(row.item().payload());
        },
        null);
  }

  private Periodic inboxCleaner(Dialect dialect) {
    Inbox inbox = config.inbox();
    checkColumns(inbox.table(), "consumer, event_id, created_at");
    String sql =
        dialect.deleteLimited(
            inbox.table(), "(consumer, event_id)", "created_at < " + dialect.nowPlusMillis());
    Cleanup cleanup =
        new Cleanup(
            config.dataSource(),
            inbox.table(),
            sql,
            inbox.retention(),
            config.instanceId(),
            () -> closed);
    return new Periodic(
        config.instanceId() + "-" + inbox.table() + "-cleanup",
        List.of(new Periodic.Task(config.cleanupInterval(), cleanup)));
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
      // each part is closed even if the caller is interrupted meanwhile; the interrupt is kept
      boolean interrupted = Thread.interrupted();
      if (notifications != null) {
        interrupted |= notifications.close();
      }
      for (Lane<?> lane : lanes) {
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

  private Database detect() {
    if (config.database() != null) {
      log.info("{} - database forced to {}", config.instanceId(), config.database());
      return config.database();
    }
    try (Connection c = config.dataSource().getConnection()) {
      Database detected = Dialects.detect(c);
      log.info(
          "{} - detected {} ({} {})",
          config.instanceId(),
          detected,
          c.getMetaData().getDatabaseProductName(),
          c.getMetaData().getDatabaseProductVersion());
      return detected;
    } catch (SQLException e) {
      throw Jdbc.wrap(config.instanceId() + " - connecting to detect the database", e);
    }
  }

  private void checkTable(QueueTable<?> table) {
    checkColumns(
        table.name(),
        "id, state, attempts, claims, available_at, leased_by, last_error, created_at, "
            + table.itemColumns()
            + (table.checkedColumns().isEmpty() ? "" : ", " + table.checkedColumns()));
  }

  private void checkColumns(String table, String columns) {
    try {
      Jdbc.autoCommit(
          config.dataSource(),
          c -> {
            try (var s = c.createStatement()) {
              s.executeQuery("SELECT " + columns + " FROM " + table + " WHERE 1 = 0").close();
            }
            return null;
          });
    } catch (SQLException e) {
      throw new PostboxException(
          "table "
              + table
              + " not found or not as shipped — run sql/"
              + database.name().toLowerCase(Locale.ROOT)
              + "/schema.sql, or for a table made by an earlier version the upgrade in"
              + " UPGRADING.md ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  /** Configures a {@link Dispatcher}; each option is validated as it is set. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private Outbox outbox;
    private Transport transport;
    private Jobs jobs;
    private Inbox inbox;
    private Map<String, JobHandler> handlers = Map.of();
    private int batchSize = 100;
    private int concurrency = 16;
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
      return new Dispatcher(
          new Settings(
              dataSource,
              outbox,
              transport,
              jobs,
              inbox,
              handlers,
              batchSize,
              concurrency,
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

package dev.postbox;

import dev.postbox.internal.Claimed;
import dev.postbox.internal.DialectChoice;
import dev.postbox.internal.IdempotentInsert;
import dev.postbox.internal.Identifiers;
import dev.postbox.internal.PostgresNotifications;
import dev.postbox.internal.QueueAdmin;
import dev.postbox.internal.QueueTable;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The durable job queue: enqueues jobs in the caller's transaction into the job table, where a
 * {@link Dispatcher} runs them with the registered {@link JobHandler}s, at least once, retrying
 * with backoff and parking after the last attempt.
 *
 * <p>Thread-safe and immutable once built. Every method runs only on the connection it is given and
 * never commits, rolls back or closes it.
 */
public final class Jobs {
  private static final String COLUMNS =
      "name, payload, dedupe_key, max_attempts, available_at, created_at";
  private static final int[] TYPES = {
    Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.INTEGER, Types.BIGINT
  };

  private final String table;
  private final int payloadLimit;
  private final boolean allowAutoCommit;
  private final int maxAttempts;
  private final Duration retention;
  private final Database database;
  private final boolean notify;
  private final QueueTable<JobRun> queueTable;
  private final QueueAdmin admin;
  private final IdempotentInsert insert;
  private final DialectChoice dialects;

  /** What a job handler is given: the job's name and payload. */
  record JobRun(String name, String payload) {}

  private Jobs(Builder b) {
    this.table = b.table;
    this.payloadLimit = b.payloadLimit;
    this.allowAutoCommit = b.allowAutoCommit;
    this.maxAttempts = b.maxAttempts;
    this.retention = b.retention;
    this.database = b.database;
    this.notify = b.notify;
    this.queueTable =
        new QueueTable<>(
            table,
            "name, payload, max_attempts",
            "id",
            "name",
            ", dedupe_key = NULL, running_key = NULL",
            // a job whose dedupe key a started job holds waits for that job to finish
            " AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM "
                + table
                + " running_job WHERE running_job.running_key = "
                + table
                + ".dedupe_key))",
            // a retry keeps the key it took on its first claim; MySQL assigns left to right, so
            // running_key takes the key before dedupe_key is cleared
            ", running_key = COALESCE(dedupe_key, running_key), dedupe_key = NULL",
            "dedupe_key, running_key",
            Jobs::read);
    this.dialects = new DialectChoice(b.database);
    this.admin = new QueueAdmin(queueTable, "jobs", dialects);
    this.insert =
        new IdempotentInsert(
            table,
            COLUMNS,
            TYPES,
            "dedupe_key",
            d -> "(?, ?, ?, ?, " + d.nowPlusMillis() + ", " + d.now() + ")",
            b.notify ? PostgresNotifications.channel(b.table) : null);
  }

  /**
   * A builder with the defaults: table {@code postbox_jobs}, 5 attempts, finished jobs kept 1 day,
   * payload limit 1 MiB.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The job table's name as configured. */
  public String table() {
    return table;
  }

  /**
   * Enqueues {@code job} in the caller's transaction. Returns false, without failing the
   * transaction, if the job has a dedupe key that an unfinished job already holds.
   *
   * @throws InvalidValueException if the payload is over the limit; nothing is written
   * @throws PostboxException if the connection is in auto-commit mode (unless allowed) or the
   *     INSERT fails
   */
  public boolean enqueue(Connection connection, Job job) {
    return enqueueAll(connection, List.of(job)) == 1;
  }

  /**
   * Enqueues {@code jobs} in the caller's transaction in one round trip (one statement per 500);
   * returns how many were new. All jobs are validated before anything is written.
   */
  public int enqueueAll(Connection connection, Collection<Job> jobs) {
    Require.notNull("jobs", jobs);
    List<Object[]> rows = new ArrayList<>(jobs.size());
    boolean dedupeKeys = false; // a job without one cannot collide with a stored job
    for (Job job : jobs) {
      Require.notNull("job", job);
      Rules.payload(job.payload(), payloadLimit);
      int attempts = job.maxAttempts() > 0 ? job.maxAttempts() : maxAttempts;
      dedupeKeys |= job.dedupeKey() != null;
      rows.add(
          new Object[] {
            job.name(), job.payload(), job.dedupeKey(), attempts, job.delay().toMillis()
          });
    }
    if (rows.isEmpty()) {
      return 0;
    }
    try {
      Require.notNull("connection", connection);
      if (!allowAutoCommit && connection.getAutoCommit()) {
        throw new PostboxException(
            "the connection is in auto-commit mode, so the job would not be atomic with your"
                + " business data — call connection.setAutoCommit(false) and commit after your own"
                + " writes, or build the job queue with allowAutoCommit(true)");
      }
      return insert.insert(connection, dialect(connection), rows, dedupeKeys);
    } catch (SQLException e) {
      throw Jdbc.wrap("enqueueing " + rows.size() + " jobs in " + table, e);
    }
  }

  /** Counts jobs not yet finished (not parked). Never claims anything. */
  public long countPending(Connection connection) {
    return admin.countPending(connection);
  }

  /** Pending, due, leased and parked counts and the oldest pending age. Never claims anything. */
  public QueueStats stats(Connection connection) {
    return admin.stats(connection);
  }

  /** Up to {@code limit} parked jobs, oldest first; {@link Parked#ref()} is the job id. */
  public List<Parked> parked(Connection connection, int limit) {
    return admin.parked(connection, limit);
  }

  /** Makes the parked job {@code id} due again with its attempts reset; false if none. */
  public boolean replay(Connection connection, long id) {
    return admin.replay(connection, "id", id, "job " + id);
  }

  /** Makes every parked job due again with its attempts reset; returns how many. */
  public int replayAll(Connection connection) {
    return admin.replayAll(connection);
  }

  /** Deletes the parked job {@code id}; false if there is no such parked job. */
  public boolean discard(Connection connection, long id) {
    return admin.discard(connection, "id", id, "job " + id);
  }

  QueueTable<JobRun> queueTable() {
    return queueTable;
  }

  boolean notifies() {
    return notify;
  }

  Duration retention() {
    return retention;
  }

  private Dialect dialect(Connection connection) throws SQLException {
    return dialects.of(connection);
  }

  private static Claimed<JobRun> read(ResultSet rs, Dialect d, long id, int attempt, int claims)
      throws SQLException {
    String name = rs.getString("name");
    return new Claimed<>(
        id,
        attempt,
        claims,
        rs.getInt("max_attempts"),
        Long.toString(id),
        name,
        new JobRun(name, rs.getString("payload")));
  }

  /** Configures {@link Jobs}; each option is validated as it is set. Not thread-safe. */
  public static final class Builder {
    private String table = "postbox_jobs";
    private int payloadLimit = Rules.DEFAULT_PAYLOAD_LIMIT;
    private boolean allowAutoCommit;
    private int maxAttempts = 5;
    private Duration retention = Duration.ofDays(1);
    private Database database;
    private boolean notify;

    private Builder() {}

    /** The job table, {@code name} or {@code schema.name}; default {@code postbox_jobs}. */
    public Builder table(String table) {
      this.table = Identifiers.tableName("table", table);
      return this;
    }

    /** Largest payload accepted, in UTF-8 bytes, 1 to 64 MiB; default 1 MiB. */
    public Builder payloadLimit(int bytes) {
      this.payloadLimit = Require.between("payloadLimit", bytes, 1, 64 * 1024 * 1024);
      return this;
    }

    /** Accepts auto-commit connections (no atomicity with business data); default false. */
    public Builder allowAutoCommit(boolean allow) {
      this.allowAutoCommit = allow;
      return this;
    }

    /** Attempts before a job is parked, for jobs without their own, 1 to 1,000; default 5. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = Require.between("maxAttempts", maxAttempts, 1, 1_000);
      return this;
    }

    /**
     * How long finished jobs are kept before cleanup deletes them, 0 to 3650 days; default 1 day.
     * Zero deletes a job as soon as it finishes. Parked jobs are kept until replayed or discarded.
     */
    public Builder retention(Duration retention) {
      this.retention =
          Require.between("retention", retention, Duration.ZERO, Duration.ofDays(3650));
      return this;
    }

    /**
     * On PostgreSQL, makes each enqueue also {@code NOTIFY} the table's channel (in the same
     * statement, delivered only if the transaction commits), and dispatchers {@code LISTEN} on it,
     * holding one pooled connection: rows added by other instances are claimed at once instead of
     * at the next poll. Ignored on other databases; default false (in-process {@link
     * Dispatcher#wakeUp()} and polling only).
     */
    public Builder notifyOnEnqueue(boolean notify) {
      this.notify = notify;
      return this;
    }

    /** Forces the SQL dialect instead of detecting it from each connection's metadata. */
    public Builder database(Database database) {
      this.database = Require.notNull("database", database);
      return this;
    }

    public Jobs build() {
      if (notify
          && PostgresNotifications.channel(table).length() > PostgresNotifications.MAX_CHANNEL) {
        throw new InvalidValueException(
            "notifyOnEnqueue",
            "needs a table name of at most "
                + PostgresNotifications.MAX_CHANNEL
                + " characters (a PostgreSQL channel name) but '"
                + table
                + "' has "
                + table.length());
      }
      return new Jobs(this);
    }
  }
}

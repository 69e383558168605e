package dev.postbox;

import dev.postbox.internal.ProducerOptions;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.sql.FairOrder;
import dev.postbox.internal.sql.Limits;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The durable job queue: enqueues jobs in the caller's transaction into the job table, where a
 * {@link Dispatcher} runs them with the registered {@link JobHandler}s, at least once, retrying
 * with backoff and parking after the last attempt.
 *
 * <p>Thread-safe and immutable once built. Every method runs only on the connection it is given, in
 * its transaction if one is open, and never commits, rolls back or closes it; none claims a job,
 * and each throws a {@link PostboxException} if its statement fails. Guide: {@code docs/jobs.md};
 * operating it: {@code docs/operations.md}.
 */
public final class Jobs extends JobControls {
  private final int payloadLimit;
  private final int maxAttempts;
  private final Duration retention;
  private final Duration timeout; // null: none
  private final boolean notify;
  private final Limits limits;
  private final JobBatch.Settings batchRules;

  private Jobs(Builder b) {
    super(b.options, b.limits());
    this.limits = b.limits();
    this.batchRules =
        new JobBatch.Settings(
            limits,
            b.maxAttempts,
            b.options.payloadLimit(),
            new FairOrder(b.options.table()),
            b.options.table());
    this.payloadLimit = b.options.payloadLimit();
    this.maxAttempts = b.maxAttempts;
    this.retention = b.retention;
    this.timeout = b.timeout;
    this.notify = b.options.notifies();
  }

  /**
   * {@return a new builder with the defaults: table {@code postbox_jobs}, 5 attempts, no timeout,
   * finished jobs kept 1 day, payload limit 1 MiB}
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Enqueues {@code job} in the caller's transaction; false, without failing that transaction, if a
   * job not started yet holds its dedupe key (a started job leaves its key to one follow-up).
   *
   * @param connection the caller's connection, in its transaction
   * @param job the job
   * @return true if the job was stored, false if a job not started yet holds its dedupe key
   * @throws InvalidValueException if the job is null, or its payload is over the limit or holds a
   *     NUL character; nothing is written
   * @throws PostboxException if the connection is in auto-commit mode (unless allowed) or the
   *     INSERT fails
   */
  public boolean enqueue(Connection connection, Job job) {
    return enqueueAll(connection, List.of(Require.notNull("job", job))) == 1;
  }

  /**
   * Enqueues {@code jobs} in the caller's transaction, one statement per 500, after validating them
   * all.
   *
   * @param connection the caller's connection, in its transaction
   * @param jobs the jobs; may be empty
   * @return how many were stored; a job whose dedupe key was taken is not
   * @throws InvalidValueException if a job is null, or its payload is over the limit or holds a NUL
   *     character; nothing is written
   * @throws PostboxException if the connection is in auto-commit mode (unless allowed) or the
   *     INSERT fails
   */
  public int enqueueAll(Connection connection, Collection<Job> jobs) {
    JobBatch batch = JobBatch.of(connection, jobs, batchRules);
    int n = batch.rows().size();
    return n == 0
        ? 0
        : writer.insert(
            connection,
            batch.rows(),
            batch.dedupeKeys(),
            "enqueueing " + n + " jobs in " + table());
  }

  /**
   * Makes the parked job {@code id} due again with its attempts reset.
   *
   * @param connection the connection to run on
   * @param id the job's id
   * @return true if it was replayed, false if there is no such parked job
   */
  public boolean replay(Connection connection, long id) {
    return admin().replay(connection, id, "job " + id);
  }

  /**
   * Deletes the parked job {@code id}, which frees its dedupe key.
   *
   * @param connection the connection to run on
   * @param id the job's id
   * @return true if it was deleted, false if there is no such parked job
   */
  public boolean discard(Connection connection, long id) {
    return admin().discard(connection, id, "job " + id);
  }

  boolean notifies() {
    return notify;
  }

  Duration retention() {
    return retention;
  }

  int maxAttempts() {
    return maxAttempts;
  }

  /** How long one attempt may run, for handlers without their own; null for no limit. */
  Duration timeout() {
    return timeout;
  }

  int payloadLimit() {
    return payloadLimit;
  }

  Limits limits() {
    return limits;
  }

  /**
   * Configures {@link Jobs}; each option is validated as it is set, and {@link #build()} copies
   * them, so later changes change nothing built. Not thread-safe. Options with their defaults:
   * {@code docs/operations.md}.
   */
  public static final class Builder {
    private ProducerOptions options = ProducerOptions.of("postbox_jobs", "_schedules");
    private int maxAttempts = 5;
    private Duration retention = Duration.ofDays(1);
    private Duration timeout; // null: none
    private final Map<String, Integer> limitPerName = new LinkedHashMap<>();
    private int limitPerGroup;

    private Builder() {}

    /**
     * At most {@code max} jobs named {@code name} run at once, counted across every dispatcher and
     * process on the table, 1 to 100,000; a later call for the name replaces it. Such jobs wait for
     * admission before a claim takes them ({@code docs/jobs.md#limits-and-groups}): declare the
     * limit on the {@code Jobs} that enqueues them and on the one each dispatcher runs them with.
     *
     * @param name the job name
     * @param max the most of its jobs running at once
     * @return this builder
     * @throws InvalidValueException if the name breaks the rules or {@code max} is out of range
     */
    public Builder limit(String name, int max) {
      Rules.name("name", name);
      limitPerName.put(name, Require.between("limit of " + name, max, 1, 100_000));
      return this;
    }

    /**
     * At most {@code max} jobs of one group ({@link Job#group}) run at once, counted across every
     * dispatcher and process on the table, 1 to 100,000; default none (grouped jobs are still
     * claimed fairly between groups).
     *
     * @param max the most jobs of one group running at once
     * @return this builder
     * @throws InvalidValueException if {@code max} is out of range
     */
    public Builder limitPerGroup(int max) {
      this.limitPerGroup = Require.between("limitPerGroup", max, 1, 100_000);
      return this;
    }

    private Limits limits() {
      return new Limits(limitPerName, limitPerGroup);
    }

    /**
     * The job table, {@code name} or {@code schema.name}; default {@code postbox_jobs}. Recurring
     * jobs keep their schedules in {@code <table>_schedules}.
     *
     * @param table each part 1-63 letters, digits or '_', not starting with a digit, the table part
     *     at most 53 (room for {@code _schedules})
     * @return this builder
     * @throws InvalidValueException if the name breaks the rules
     */
    public Builder table(String table) {
      options = options.table(table);
      return this;
    }

    /**
     * Attempts before a job is parked, for jobs without their own, 1 to 1,000; default 5. Stored
     * with each job when it is enqueued.
     *
     * @param maxAttempts the attempt limit
     * @return this builder
     * @throws InvalidValueException if the limit is out of range
     */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = Require.between("maxAttempts", maxAttempts, 1, 1_000);
      return this;
    }

    /**
     * Largest job payload accepted, in UTF-8 bytes, from 1 byte to 64 MiB; default 1 MiB.
     *
     * @param bytes the limit
     * @return this builder
     * @throws InvalidValueException if the limit is out of range
     */
    public Builder payloadLimit(int bytes) {
      options = options.payloadLimit(bytes);
      return this;
    }

    /**
     * How long finished jobs are kept before cleanup deletes them, 0 to 3650 days; default 1 day.
     * Zero deletes a job as soon as it finishes. Parked jobs are kept until replayed or discarded.
     *
     * @param retention how long a finished job is kept
     * @return this builder
     * @throws InvalidValueException if the retention is null or out of range
     */
    public Builder retention(Duration retention) {
      this.retention =
          Require.between("retention", retention, Duration.ZERO, Duration.ofDays(3650));
      return this;
    }

    /**
     * Accepts auto-commit connections (no atomicity with business data); default false.
     *
     * @param allow true to accept connections in auto-commit mode
     * @return this builder
     */
    public Builder allowAutoCommit(boolean allow) {
      options = options.allowAutoCommit(allow);
      return this;
    }

    /**
     * How long one attempt of a job may run, 1 s to 7 days, for handlers without their own ({@link
     * JobHandler#timeout}, {@link JobHandler#noTimeout}); default none. An attempt still running
     * then is interrupted and counts as failed; one that ignores the interrupt runs on, abandoned:
     * {@code docs/jobs.md#what-a-job-promises}.
     *
     * @param timeout the longest an attempt may run
     * @return this builder
     * @throws InvalidValueException if the timeout is null or out of range
     */
    public Builder timeout(Duration timeout) {
      this.timeout = TimedJobHandler.valid(timeout);
      return this;
    }

    /**
     * On PostgreSQL, makes each enqueue {@code NOTIFY} the table's channel (delivered only if its
     * transaction commits) and dispatchers {@code LISTEN} on it, holding one pooled connection, so
     * jobs enqueued by other instances are claimed at once. Ignored elsewhere; default false.
     *
     * @param notify true to notify the dispatchers of each enqueue
     * @return this builder
     */
    public Builder notifyDispatchers(boolean notify) {
      options = options.notifies(notify);
      return this;
    }

    /**
     * The former name of {@link #notifyDispatchers}.
     *
     * @param notify true to notify the dispatchers of each enqueue
     * @return this builder
     * @deprecated use {@link #notifyDispatchers}, the name the outbox's builder shares
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder notifyOnEnqueue(boolean notify) {
      return notifyDispatchers(notify);
    }

    /**
     * A job queue with these options.
     *
     * @return the job queue
     * @throws InvalidValueException if {@code notifyDispatchers} is set and the table name is too
     *     long for a PostgreSQL channel name
     */
    public Jobs build() {
      options = options.checked("notifyDispatchers");
      return new Jobs(this);
    }
  }
}

package dev.postbox;

import dev.postbox.internal.ProducerOptions;
import dev.postbox.internal.Require;
import dev.postbox.internal.recurring.RecurringAdmin;
import dev.postbox.internal.sql.Limits;
import java.sql.Connection;
import java.util.List;
import java.util.OptionalLong;

/**
 * What {@link Jobs} offers besides enqueueing and the reads it shares with the outbox: a job's id
 * and cancelling by id or dedupe key, the stored recurring schedules, pausing job names, and the
 * pending jobs per name. Package-private, so its methods are documented as {@link Jobs}'s; same
 * contract: thread-safe, each runs only on the connection it is given and never commits, rolls back
 * or closes it.
 */
abstract sealed class JobControls extends ProducerTable<JobContext> permits Jobs {
  private final JobStatements statements;
  private final JobFlow flow;
  private final Limits limits;

  JobControls(ProducerOptions options, Limits limits) {
    super(JobRows.writer(options), JobRows.queueTable(options.table(), limits), "jobs");
    this.statements = new JobStatements(options.table());
    this.flow = new JobFlow(options, writer.dialects());
    this.limits = limits;
  }

  /**
   * The id of the unfinished job that holds {@code dedupeKey}, the one not started yet first; in
   * the transaction that enqueued a job with a key, its id.
   *
   * @param connection the connection to run on
   * @param dedupeKey the dedupe key
   * @return the job's id, or empty if no unfinished job holds the key
   * @throws InvalidValueException if the key breaks the dedupe key rules
   */
  public OptionalLong idOf(Connection connection, String dedupeKey) {
    return statements.idOf(connection, dedupeKey);
  }

  /**
   * Deletes job {@code id} if it has not started (pending, delayed, backing off or parked), which
   * frees its dedupe key; a running job is not interrupted and is not cancelled.
   *
   * @param connection the connection to run on
   * @param id the job's id
   * @return true if the job was deleted, false if there is no such job or it is running
   */
  public boolean cancel(Connection connection, long id) {
    return statements.cancel(connection, id);
  }

  /**
   * Cancels, as {@link #cancel} does, the jobs not started that hold {@code dedupeKey}: the one
   * waiting to start and one retrying or parked with the key, if any.
   *
   * @param connection the connection to run on
   * @param dedupeKey the dedupe key
   * @return true if a job was deleted, false if there was none to cancel
   * @throws InvalidValueException if the key breaks the dedupe key rules
   */
  public boolean cancelByDedupeKey(Connection connection, String dedupeKey) {
    return statements.cancelByDedupeKey(connection, dedupeKey);
  }

  /**
   * The schedules of recurring jobs stored in the schedules table, with their next tick and how
   * their last run stands: {@code docs/jobs.md#recurring-jobs}.
   *
   * @param connection the connection to run on
   * @return the schedules, ordered by name; empty if there are none
   */
  public List<StoredSchedule> schedules(Connection connection) {
    return RecurringAdmin.list(connection, writer.dialects(), table());
  }

  /**
   * Deletes the stored schedule of the recurring job {@code name}; a run already enqueued still
   * runs, and a dispatcher that still declares the schedule stores it again when it starts.
   *
   * @param connection the connection to run on
   * @param name the job name of the schedule
   * @return true if a schedule was deleted, false if there was none
   * @throws InvalidValueException if the name breaks the job name rules
   */
  public boolean removeSchedule(Connection connection, String name) {
    return RecurringAdmin.remove(connection, writer.dialects(), table(), name);
  }

  /**
   * Makes the next run of the recurring job {@code name} due now, in the caller's transaction: its
   * stored next tick moves to now, and a dispatcher declaring the schedule enqueues the run within
   * its poll interval. Still one run per tick and never two at once: a run still unfinished delays
   * it, as it delays any tick. The ticks after it follow from now.
   *
   * @param connection the connection to run on
   * @param name the job name of the schedule
   * @return true if the next run moved to now, false if there is no such schedule or its next run
   *     is due already
   * @throws InvalidValueException if the name breaks the job name rules
   */
  public boolean runScheduleNow(Connection connection, String name) {
    return RecurringAdmin.runNow(connection, writer.dialects(), table(), name);
  }

  /**
   * Pauses the job name {@code name} in the caller's transaction: once it commits, every
   * dispatcher's next claim leaves the name's jobs where they are until {@link #resume}. A running
   * job is never interrupted; the pause is stored in {@code <table>_flow}, so it outlives restarts.
   * Pausing a paused name changes nothing, its pause time included: {@code
   * docs/jobs.md#flow-control}.
   *
   * @param connection the caller's connection, in its transaction
   * @param name the job name; it need not have jobs or a handler
   * @throws InvalidValueException if the name breaks the job name rules; nothing is written
   * @throws PostboxException if the connection is in auto-commit mode (unless allowed) or the
   *     statement fails
   */
  public void pause(Connection connection, String name) {
    flow.pause(connection, name);
  }

  /**
   * Resumes the paused job name {@code name} in the caller's transaction: once it commits, every
   * dispatcher's next claim takes its jobs again (at once on PostgreSQL with {@link
   * Jobs.Builder#notifyDispatchers}). Resuming a name not paused changes nothing.
   *
   * @param connection the caller's connection, in its transaction
   * @param name the job name
   * @throws InvalidValueException if the name breaks the job name rules; nothing is written
   * @throws PostboxException if the connection is in auto-commit mode (unless allowed) or the
   *     statement fails
   */
  public void resume(Connection connection, String name) {
    flow.resume(connection, name);
  }

  /**
   * The paused job names, each once, sorted by {@link String#compareTo}.
   *
   * @param connection where to read
   * @return the paused names; empty if none is paused
   */
  public List<String> paused(Connection connection) {
    return flow.paused(connection);
  }

  /**
   * The pending jobs counted per job name, in name order, with how many are due and leased and
   * since when the oldest due one has been due (a name whose due jobs grow old has no dispatcher
   * with its handler), and whether the name is paused (its jobs are then not due): {@code
   * docs/jobs.md#rolling-deploys-and-new-job-types}.
   *
   * @param connection where to read
   * @return one entry per name with pending jobs or paused
   * @throws InvalidValueException if {@code connection} is null
   */
  public List<JobNameStats> statsByName(Connection connection) {
    Require.notNull("connection", connection);
    return JobNames.stats(connection, writer.dialects(), table(), limits);
  }

  /**
   * The {@code n} groups ({@link Job#group}) with the most jobs running, then the most pending,
   * each with its pending, due and running jobs: which tenants use the dispatchers now. Reads every
   * pending job that has a group.
   *
   * @param connection where to read
   * @param n how many groups at most, 1 to 1,000
   * @return the groups, busiest first; empty if no pending job has a group
   * @throws InvalidValueException if {@code connection} is null or {@code n} is out of range
   */
  public List<JobGroupStats> busiestGroups(Connection connection, int n) {
    Require.notNull("connection", connection);
    Require.between("n", n, 1, 1_000);
    return JobGroupStats.busiest(connection, writer.dialects(), table(), n);
  }
}

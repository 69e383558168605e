package dev.postbox;

import dev.postbox.internal.ProducerOptions;
import dev.postbox.internal.TableWriter;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Limits;
import dev.postbox.internal.sql.QueueTable;
import dev.postbox.internal.sql.RowReader;
import dev.postbox.internal.sql.Sql;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;

/**
 * The job table's own columns: what an enqueue inserts, what a claim returns and sets, and how a
 * claimed row becomes the {@link JobContext} a handler is given. A job's dedupe key moves from
 * {@code dedupe_key} to {@code running_key} when it is first claimed, so that one follow-up job
 * with the key can be enqueued meanwhile; the claim passes over a job whose key a started job
 * holds.
 */
final class JobRows {
  /** The inserted columns; the bound ones first, as in {@link #TUPLE}. */
  static final String INSERTED =
      "name, payload, dedupe_key, max_attempts, state, grp, fair_tag, available_at, created_at";

  /**
   * Types of one row's bound values: name, payload, dedupe key, max attempts, state, group, fair
   * tag, delay millis.
   */
  static final int[] TYPES = {
    Types.VARCHAR,
    Types.VARCHAR,
    Types.VARCHAR,
    Types.INTEGER,
    Types.INTEGER,
    Types.VARCHAR,
    Types.BIGINT,
    Types.BIGINT
  };

  /**
   * The states of a pending job: 0, or waiting for admission (docs/jobs.md#limits-and-groups): 5
   * until due, then 3.
   */
  static final String PENDING = "state IN (0, 3, 5)";

  /** A job that waits for admission (it has a fair_tag) goes back to wait when its lease ends. */
  static final String UNLEASE_SET = ", state = CASE WHEN fair_tag IS NULL THEN state ELSE 5 END";

  private JobRows() {}

  /** One row's values, its clock a placeholder: due after its delay by the database clock. */
  static final String TUPLE = "(?, ?, ?, ?, ?, ?, ?, {nowPlusMillis}, {now})";

  /** The writer of a job table. */
  static TableWriter writer(ProducerOptions options) {
    return new TableWriter(
        options,
        INSERTED,
        TYPES,
        "dedupe_key",
        TUPLE,
        TableWriter.autoCommitRefusal(
            "the job would not be atomic with your business data", "enqueue"));
  }

  /** How the engine sees the job table {@code table}, whose jobs have {@code limits}. */
  static QueueTable<JobContext> queueTable(String table, Limits limits) {
    QueueTable.Columns columns =
        new QueueTable.Columns(
            "name, payload, max_attempts, dedupe_key, running_key, available_at, due_at, tick_at",
            "id",
            "name",
            "dedupe_key, running_key, due_at, tick_at, grp, fair_tag",
            // a job's key moves to running_key when it is first claimed, as every failed job was
            "COALESCE(running_key, dedupe_key)");
    QueueTable.Clauses clauses =
        new QueueTable.Clauses(
            Home.common(Sql.JOBS_DONE_SET),
            Home.common(Sql.JOBS_CLAIM_FILTER).replace("{table}", table),
            Home.common(Sql.JOBS_CLAIM_SET),
            PENDING,
            UNLEASE_SET,
            "CASE WHEN fair_tag IS NULL THEN 0 ELSE 5 END");
    return new QueueTable<>(table, columns, clauses, JobRows::read, null, limits);
  }

  /** Reads claimed rows of {@code rs} into job contexts, their columns looked up once. */
  private static RowReader.Rows<JobContext> read(ResultSet rs, Dialect d, boolean leased)
      throws SQLException {
    int nameColumn = rs.findColumn("name");
    int maxAttemptsColumn = rs.findColumn("max_attempts");
    int runningKeyColumn = rs.findColumn("running_key");
    int dedupeKeyColumn = rs.findColumn("dedupe_key");
    int dueColumn = rs.findColumn(leased ? "due_at" : "available_at");
    int tickColumn = rs.findColumn("tick_at");
    int payloadColumn = rs.findColumn("payload");
    return (id, attempt, claims) -> {
      String name = rs.getString(nameColumn);
      int maxAttempts = rs.getInt(maxAttemptsColumn);
      // a row read before the claim may still have its key in dedupe_key
      String key = rs.getString(runningKeyColumn);
      key = key != null ? key : rs.getString(dedupeKeyColumn);
      Instant dueAt = d.readInstant(rs, dueColumn);
      Instant tick = d.readInstant(rs, tickColumn);
      JobContext job =
          new JobContext(
              id, name, rs.getString(payloadColumn), attempt, maxAttempts, key, tick, dueAt);
      return new Claimed<>(id, attempt, claims, maxAttempts, Long.toString(id), name, job);
    };
  }
}

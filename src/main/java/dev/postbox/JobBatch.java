package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.FairOrder;
import dev.postbox.internal.sql.Limits;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The rows of one enqueue, validated: a job without a group or limit is pending at once (state 0);
 * one with a group or a limited name waits for admission (docs/jobs.md#limits-and-groups), in state
 * 5 until due and in state 3 from then on, with its place in the {@link FairOrder}.
 *
 * @param rows one row's bound values each, in {@link JobRows#TYPES}' order
 * @param dedupeKeys whether a job has a dedupe key (one without cannot collide with a stored job)
 */
record JobBatch(List<Object[]> rows, boolean dedupeKeys) {
  private static final int WAITING = 3;
  private static final int WAITING_UNTIL_DUE = 5;

  /** What one {@link Jobs} makes its batches with. */
  record Settings(
      Limits limits, int maxAttempts, int payloadLimit, FairOrder order, String table) {}

  /**
   * The batch of {@code jobs}, validated all before anything is read: the fair order is read on
   * {@code c} for the jobs that wait.
   *
   * @throws InvalidValueException if a job is null or its payload is over the limit or holds a NUL
   */
  static JobBatch of(Connection c, Collection<Job> jobs, Settings rules) {
    Require.notNull("jobs", jobs);
    List<Object[]> rows = new ArrayList<>(jobs.size());
    boolean dedupeKeys = false;
    List<Job> waiting = new ArrayList<>();
    for (Job job : jobs) {
      Require.notNull("job", job);
      Rules.payload(job.payload(), rules.payloadLimit());
      int attempts = job.maxAttempts() > 0 ? job.maxAttempts() : rules.maxAttempts();
      dedupeKeys |= job.dedupeKey() != null;
      boolean waits = rules.limits().gated(job.name(), job.group());
      boolean due = job.delay().isZero();
      if (waits) {
        waiting.add(job);
      }
      rows.add(
          new Object[] {
            job.name(),
            job.payload(),
            job.dedupeKey(),
            attempts,
            waits ? (due ? WAITING : WAITING_UNTIL_DUE) : 0,
            job.group(),
            waits ? 0L : null, // its place: below
            job.delay().toMillis()
          });
    }
    if (!waiting.isEmpty()) {
      place(c, waiting, rows, rules);
    }
    return new JobBatch(rows, dedupeKeys);
  }

  /**
   * Sets the fair_tag of the rows of {@code waiting}: a delayed one's too, which keeps its distance
   * behind the others when it joins them (admission-promote).
   */
  private static void place(Connection c, List<Job> waiting, List<Object[]> rows, Settings rules) {
    long[] places;
    try {
      places =
          rules
              .order()
              .places(
                  c,
                  waiting.stream().map(Job::name).toList(),
                  waiting.stream().map(Job::group).toList());
    } catch (SQLException e) {
      throw Jdbc.wrap("reading the fair order of " + rules.table(), e);
    }
    int next = 0;
    for (Object[] row : rows) {
      if (row[6] != null) {
        row[6] = places[next++];
      }
    }
  }
}

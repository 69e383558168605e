package dev.postbox.reliability;

import dev.postbox.Job;
import dev.postbox.JobHandler;
import dev.postbox.Jobs;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.testing.RunLedger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The ledger of the limit scenario ({@link LimitScenario}): the limited jobs, the handlers that run
 * them in a dispatcher process and record each run in {@code rel_runs}, and the rule that checks a
 * limit on the record. A run's start and end are written by the database clock, one clock for every
 * process, each in its own auto-commit statement inside the run: the recorded interval lies within
 * the time the job held its slot (admitted until finished), so runs under way at once never
 * outnumber admitted jobs.
 *
 * <p>A run without an end was cut by a kill -9. Its job stays admitted, its slot held, until its
 * lease runs out and it runs again in that slot (docs/jobs.md#limits-and-groups): the rule counts
 * it as under way until its job's next start.
 */
final class LimitLedger {
  /** A name limited to {@link #LIMIT} at once, its jobs without a group. */
  static final String LIMITED = "send-invoice";

  /**
   * A name whose jobs are spread over {@link #GROUPS} groups, {@link #PER_GROUP} of each at once.
   */
  static final String GROUPED = "import-row";

  static final int LIMIT = 3;
  static final int PER_GROUP = 2;
  static final int GROUPS = 4;

  private LimitLedger() {}

  /** The limits, declared alike where jobs are enqueued and where they are run. */
  static Jobs jobs() {
    return Jobs.builder().limit(LIMITED, LIMIT).limitPerGroup(PER_GROUP).build();
  }

  /**
   * Job number {@code n} of {@code name}: of {@link #GROUPED} in group {@code tenant-<n mod
   * GROUPS>}; its payload is {@code "<group or ->/<n>"}, its dedupe key {@code lim-<n>} (the key a
   * kill's in-flight rows are named by).
   */
  static Job job(String name, long n) {
    if (name.equals(LIMITED)) {
      return Job.of(LIMITED, "-/" + n).dedupeKey("lim-" + n);
    }
    String group = "tenant-" + (n % GROUPS);
    return Job.of(GROUPED, group + "/" + n).dedupeKey("lim-" + n).group(group);
  }

  /**
   * The handlers of both names for the dispatcher process {@code instance}: each run records its
   * start, works {@code workMillis} give or take a half, and records its end.
   */
  static JobHandler[] handlers(DataSource ds, Dialect dialect, String instance, long workMillis) {
    return new JobHandler[] {
      handler(LIMITED, ds, dialect, instance, workMillis),
      handler(GROUPED, ds, dialect, instance, workMillis)
    };
  }

  private static JobHandler handler(
      String name, DataSource ds, Dialect dialect, String instance, long workMillis) {
    AtomicLong runs = new AtomicLong();
    String start =
        "INSERT INTO rel_runs (run_id, job_id, job_key, name, grp, attempt, instance_id,"
            + " started_at) VALUES (?, ?, ?, ?, ?, ?, ?, "
            + dialect.now()
            + ")";
    String end = "UPDATE rel_runs SET ended_at = " + dialect.now() + " WHERE run_id = ?";
    return JobHandler.of(
        name,
        job -> {
          String runId = instance + "/" + name + "#" + runs.incrementAndGet();
          String group = job.payload().substring(0, job.payload().indexOf('/'));
          try (Connection c = ds.getConnection();
              PreparedStatement ps = c.prepareStatement(start)) {
            ps.setString(1, runId);
            ps.setLong(2, job.id());
            ps.setString(3, job.dedupeKey());
            ps.setString(4, name);
            ps.setString(5, group.equals("-") ? null : group);
            ps.setInt(6, job.attempt());
            ps.setString(7, instance);
            ps.executeUpdate();
          }
          Thread.sleep(workMillis / 2 + ThreadLocalRandom.current().nextLong(workMillis + 1));
          try (Connection c = ds.getConnection();
              PreparedStatement ps = c.prepareStatement(end)) {
            ps.setString(1, runId);
            ps.executeUpdate();
          }
        });
  }

  /** One recorded run; {@code end} is null for a run a kill cut. */
  record Run(
      long job,
      String key,
      String name,
      String group,
      String instance,
      Instant start,
      Instant end) {}

  /** Every recorded run, in order of start. */
  static List<Run> runs(RelDb db) {
    List<Run> runs = new ArrayList<>();
    try (Connection c = db.ds().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT job_id, job_key, name, grp, instance_id, started_at, ended_at"
                    + " FROM rel_runs");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        runs.add(
            new Run(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                db.dialect.readInstant(rs, "started_at"),
                db.dialect.readInstant(rs, "ended_at")));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    runs.sort(Comparator.comparing(Run::start));
    return runs;
  }

  /** How long a run held its slot: until its end, or if cut, its job's next start (null: never). */
  record Held(Run run, Instant until) {}

  /** The slot each run held; see {@link LimitLedger}. */
  static List<Held> held(List<Run> runs) {
    Map<Long, List<Run>> byJob = new HashMap<>();
    for (Run r : runs) {
      byJob.computeIfAbsent(r.job(), k -> new ArrayList<>()).add(r);
    }
    List<Held> held = new ArrayList<>();
    for (List<Run> ofJob : byJob.values()) {
      ofJob.sort(Comparator.comparing(Run::start));
      for (int i = 0; i < ofJob.size(); i++) {
        Run r = ofJob.get(i);
        Instant next = i + 1 < ofJob.size() ? ofJob.get(i + 1).start() : null;
        held.add(new Held(r, r.end() != null ? r.end() : next));
      }
    }
    return held;
  }

  /**
   * The most runs holding a slot at once among those with the same {@code key} (runs whose key is
   * null are left out), per key: a sweep over every start and end in time order, an end before a
   * start at the same instant (a job finishes before the admission that refills its slot). A cut
   * run never run again holds its slot to the end of the record.
   */
  static Map<String, Integer> mostAtOnce(List<Held> held, Function<Run, String> key) {
    return RunLedger.mostAtOnce(
        held.stream().filter(h -> key.apply(h.run()) != null).toList(),
        h -> key.apply(h.run()),
        h -> micros(h.run().start()),
        h -> h.until() == null ? Long.MAX_VALUE : micros(h.until()));
  }

  /** Microseconds since the epoch: the finest the database clocks record. */
  private static long micros(Instant t) {
    return t.getEpochSecond() * 1_000_000 + t.getNano() / 1_000;
  }

  /** The longest a cut run held its slot, from its start to its job's next start, in ms. */
  static long longestCutHoldMillis(List<Held> held) {
    long longest = 0;
    for (Held h : held) {
      if (h.run().end() == null && h.until() != null) {
        longest = Math.max(longest, Duration.between(h.run().start(), h.until()).toMillis());
      }
    }
    return longest;
  }
}

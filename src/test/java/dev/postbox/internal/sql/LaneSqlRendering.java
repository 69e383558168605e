package dev.postbox.internal.sql;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.testing.RenderedSql;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Renders every statement a lane and the admin calls run on one queue table ({@link QueueSql}), as
 * the claim strategy of the database sends them, for {@code RenderedSqlTest}. Statements whose text
 * depends on a count are rendered for a few counts.
 */
public final class LaneSqlRendering {
  private static final int[] COUNTS = {1, 2, 3};
  private static final int[] EXCLUDED = {0, 1, 2};
  private static final int[] PADDED = {1, 2, 4}; // a finish binds its ids padded (FinishTexts)
  private static final String OWNER = "instance-1"; // written into MySQL's pipelined claim
  private static final long LEASE_MILLIS = 120_000;

  private final RenderedSql.Folder out;
  private final QueueSql sql;
  private final boolean outbox;

  private LaneSqlRendering(RenderedSql.Folder out, QueueSql sql, boolean outbox) {
    this.out = out;
    this.sql = sql;
    this.outbox = outbox;
  }

  /**
   * Renders into {@code out} the statements of a lane on {@code lane} claiming {@code batchSize}
   * rows, and of the admin calls on {@code admin} (statements filled as {@code QueueAdmin} fills
   * them). {@code outbox}: the outbox's lane, which probes in an outage and deletes delivered rows;
   * else the job lane, which keeps them as done (or deletes them, with no retention) and cleans up.
   */
  public static void render(
      RenderedSql.Folder out,
      Dialect d,
      QueueTable<?> lane,
      QueueTable<?> admin,
      boolean outbox,
      int batchSize) {
    LaneSqlRendering r = new LaneSqlRendering(out, QueueSql.of(d, lane, batchSize), outbox);
    switch (d.database()) {
      case POSTGRESQL -> r.oneStatementClaim();
      case SQLITE -> r.writeLockedClaim();
      case H2 -> r.lockByIdClaim();
      case MYSQL -> {
        r.pipelined();
        r.lockByIdClaim();
      }
    }
    if (lane.keyOrder() != null) {
      r.walk();
    }
    r.outcomes();
    r.admin(QueueSql.of(d, admin, 1));
  }

  private List<Boolean> keepDone() {
    return outbox ? List.of(false) : List.of(true, false);
  }

  private static String finish(boolean keepDone) {
    return keepDone ? "done" : "delete";
  }

  private static List<Long> ids(int n) {
    List<Long> ids = new ArrayList<>(n);
    for (long i = 1; i <= n; i++) {
      ids.add(i);
    }
    return ids;
  }

  /** The probes of an outage, from each end, fresh or not, excluding {@code excluded} rows. */
  private static List<Probe> probeShapes(int excluded) {
    List<Probe> probes = new ArrayList<>();
    for (boolean oldest : List.of(false, true)) {
      for (boolean fresh : List.of(false, true)) {
        probes.add(new Probe(ids(excluded), fresh, oldest));
      }
    }
    return probes;
  }

  private static String shape(Probe p) {
    return (p.oldest() ? "oldest" : "newest") + (p.fresh() ? "-fresh" : "");
  }

  private static String finishParams(int n) {
    return "leased_by, claims, the " + n + " ids (the last one repeated up to the count)";
  }

  // ---- the claim of each database

  private void oneStatementClaim() {
    boolean runs = sql.runsInClaim();
    String claim = runs ? "claim-runs" : "claim";
    String leaseParams =
        runs
            ? "leased_by, lease millis, the far heads' ids (an array), how many rows at most"
            : "leased_by, lease millis";
    out.add("claim-plan", "none", sql.text(Sql.CLAIM_PLAN));
    out.add(claim, leaseParams, runs ? sql.claimRuns() : sql.text(Sql.CLAIM));
    for (boolean keepDone : keepDone()) {
      for (int n : PADDED) {
        out.add(
            claim + "-after-finish-" + finish(keepDone) + "-" + n,
            leaseParams + ", then the finish's: " + finishParams(n),
            runs ? sql.claimRunsAfterFinish(n, keepDone) : sql.claimAfterFinish(n, keepDone));
      }
    }
    probes();
  }

  private void writeLockedClaim() {
    transaction();
    boolean heads = sql.text(Sql.CLAIM_HEADS) != null;
    out.add(
        heads ? "claim-heads" : "claim",
        "leased_by, lease millis",
        heads ? sql.text(Sql.CLAIM_HEADS) : sql.text(Sql.CLAIM));
    if (heads) {
      out.add("window-rows", "none", sql.text(Sql.WINDOW_ROWS));
      for (int n : COUNTS) {
        out.add(
            "lease-heads-" + n,
            "leased_by, lease millis, the " + n + " ids, the limit",
            sql.withIds(Sql.LEASE_HEADS, n));
      }
    }
    if (sql.keyOrder != null) {
      followers();
      for (int n : COUNTS) {
        out.add(
            "lease-followers-" + n,
            "leased_by, lease millis, the " + n + " ids",
            sql.withIds(Sql.LEASE_FOLLOWERS, n));
      }
    }
    probes();
  }

  private void lockByIdClaim() {
    // a table ordered by key reads one window; others read the next one without the rows tried
    for (int n : sql.keyOrder != null ? new int[] {0} : EXCLUDED) {
      out.add(
          "candidates-excluding-" + n,
          n == 0 ? "none" : "the " + n + " excluded ids",
          sql.candidates(n, null));
    }
    for (int n : COUNTS) {
      out.add("lock-candidates-" + n, "the " + n + " ids, the limit", sql.lockCandidates(n, null));
      out.add(
          "lease-" + n, "leased_by, lease millis, the " + n + " ids", sql.withIds(Sql.LEASE, n));
    }
    if (sql.keyOrder != null) {
      followers();
      for (int n : COUNTS) {
        out.add("lock-followers-" + n, "the " + n + " ids", sql.withIds(Sql.LOCK_FOLLOWERS, n));
        out.add(
            "lease-run-" + n,
            "leased_by, lease millis, the " + n + " ids",
            sql.withIds(Sql.LEASE_RUN, n));
      }
    }
    if (!outbox) {
      return;
    }
    for (int excluded : EXCLUDED) {
      for (Probe p : probeShapes(excluded)) {
        out.add(
            "probe-candidates-" + shape(p) + "-excluding-" + excluded,
            excludedParams(excluded) + "the limit",
            sql.candidates(excluded, p));
      }
    }
    for (Probe p : probeShapes(0)) {
      for (int n : COUNTS) {
        out.add(
            "probe-lock-candidates-" + shape(p) + "-" + n,
            "the " + n + " ids, the limit",
            sql.lockCandidates(n, p));
      }
    }
  }

  private static String excludedParams(int n) {
    return n == 0 ? "" : "the " + n + " excluded ids, ";
  }

  /** MySQL's claim: its transaction, and examples of the statements it sends with values in. */
  private void pipelined() {
    transaction();
    for (boolean keepDone : keepDone()) {
      PipelinedClaim claim = new PipelinedClaim(sql, OWNER, LEASE_MILLIS, keepDone);
      out.add(
          "pipelined-finish-" + finish(keepDone) + "-example",
          "none: written in (leased_by '" + OWNER + "', claims 7, ids 1, 2, 3 padded to 4)",
          claim.inlined(sql.finishSql(3, keepDone), 7, FinishTexts.padded(ids(3))));
    }
    PipelinedClaim claim = new PipelinedClaim(sql, OWNER, LEASE_MILLIS, false);
    String values =
        "none: written in (leased_by '" + OWNER + "', lease millis " + LEASE_MILLIS + ", ids 1, 2)";
    out.add(
        "pipelined-lease-example",
        values,
        claim.inlined(sql.withIds(Sql.LEASE, 2), LEASE_MILLIS, ids(2)));
    if (sql.keyOrder != null) {
      out.add(
          "pipelined-lease-run-example",
          values,
          claim.inlined(sql.withIds(Sql.LEASE_RUN, 2), LEASE_MILLIS, ids(2)));
    }
  }

  /** The statements that begin and end a claim's transaction, where they are statements. */
  private void transaction() {
    out.addGroup("claim-begin", "none", sql.beginClaim);
    out.add("claim-commit", "none", Jdbc.COMMIT);
    out.add("claim-rollback", "none", Jdbc.ROLLBACK);
  }

  /** The probes of an outage, where one statement claims the probed row. */
  private void probes() {
    if (!outbox) {
      return;
    }
    for (int excluded : EXCLUDED) {
      for (Probe p : probeShapes(excluded)) {
        out.add(
            "probe-" + shape(p) + "-excluding-" + excluded,
            "leased_by, lease millis, " + excludedParams(excluded) + "the limit",
            sql.probe(p));
      }
    }
  }

  /** The runs behind the heads, read in a second step: a UNION ALL of one branch per head. */
  private void followers() {
    for (int heads : COUNTS) {
      out.add(
          "followers-" + heads,
          String.join(", ", Collections.nCopies(heads, "the key, the head's id, how many")),
          sql.followers(heads));
    }
  }

  // ---- what every database runs

  /** The walk over the keys of a table ordered by key ({@link KeyWalk}). */
  private void walk() {
    if (sql.text(Sql.WALK_KEYS) != null) {
      out.add("walk-keys", "the key to start after, how many keys", sql.text(Sql.WALK_KEYS));
      out.add("walk-keys-from-start", "how many keys", sql.walkKeysFromStart());
    } else {
      out.add("walk-key-step", "the key to start after", sql.text(Sql.WALK_KEY_STEP));
      out.add("walk-key-step-from-start", "none", sql.text(Sql.WALK_KEY_STEP_FROM_START));
    }
    out.add("unkeyed-due", "how many", sql.text(Sql.UNKEYED_DUE));
    if (sql.text(Sql.PARKED_OF_KEYS) != null) {
      for (int n : COUNTS) {
        out.add("parked-of-keys-" + n, "the " + n + " keys", sql.withIds(Sql.PARKED_OF_KEYS, n));
      }
    }
  }

  /** The outcome writer's, the lease renewer's, the cleanup's and the vacuum's statements. */
  private void outcomes() {
    for (boolean keepDone : keepDone()) {
      for (int n : PADDED) {
        out.add(
            "finish-" + finish(keepDone) + "-" + n, finishParams(n), sql.finishSql(n, keepDone));
      }
    }
    out.add(
        "fail", "attempts, delay millis, last_error, id, leased_by, claims", sql.text(Sql.FAIL));
    out.add(
        "snooze",
        "refund, delay millis, last_error, id, leased_by, claims, the bound",
        sql.text(Sql.SNOOZE));
    out.add("park", "attempts, last_error, id, leased_by, claims", sql.text(Sql.PARK));
    out.add("parked-at", "id, claims", sql.text(Sql.PARKED_AT));
    out.add("release", "the attempt to refund, id, leased_by, claims", sql.text(Sql.RELEASE));
    if (sql.home.claimReturnsDue) {
      out.add(
          "release-to",
          "the attempt to refund, available_at, id, leased_by, claims",
          sql.text(Sql.RELEASE_TO));
    }
    for (int n : COUNTS) {
      out.add(
          "extend-" + n, "lease millis, leased_by, the " + n + " ids", sql.withIds(Sql.EXTEND, n));
    }
    if (!outbox) {
      out.add("cleanup", "-retention millis, the limit", sql.text(Sql.CLEANUP));
    }
    if (sql.vacuum() != null) {
      out.add("vacuum", "none", sql.vacuum());
      out.add("stats-stale", "none", sql.statsStale());
      out.add("analyze", "none", sql.analyze());
    }
  }

  /** The statements of the admin calls: stats, failing and parked rows, replay, discard. */
  private void admin(QueueSql admin) {
    out.add("count-pending", "none", admin.text(Sql.COUNT_PENDING));
    out.add("stats", "none", admin.text(Sql.STATS));
    out.add("parked", "the limit", admin.text(Sql.PARKED));
    out.add("failing", "the limit", admin.text(Sql.FAILING));
    out.add("replay", "the ref", admin.text(Sql.REPLAY));
    out.add("replay-all", "none", admin.text(Sql.REPLAY_ALL));
    out.add("discard", "the ref", admin.text(Sql.DISCARD));
    if (admin.text(Sql.BLOCKED_KEYS) != null) {
      out.add("blocked-keys", "the limit", admin.text(Sql.BLOCKED_KEYS));
    }
  }
}

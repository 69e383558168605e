package dev.postbox.internal.sql;

import java.util.Locale;

/**
 * The names of the statements on a queue table, each a file {@code <name>.sql} of its database's
 * folder in the statement catalogue, or of its {@code common} folder ({@link Home}); the file says
 * what the statement does and names its bound parameters in order. Some exist only for a table
 * ordered by key ({@link Needs#KEY_ORDER}), or only where parked rows block their keys; the others
 * are not a queue table's (the adds) and are filled in by the code that runs them.
 */
public enum Sql {
  BEGIN_CLAIM(Needs.CALLER),
  CLAIM_PLAN,
  CLAIM,
  CLAIM_AFTER_FINISH,
  PROBE,
  CLAIM_RUNS(Needs.KEY_ORDER),
  CLAIM_RUNS_AFTER_FINISH(Needs.KEY_ORDER),
  CLAIM_HEADS(Needs.KEY_ORDER),
  WINDOW_ROWS(Needs.KEY_ORDER),
  LEASE_HEADS(Needs.KEY_ORDER),
  WALK_KEYS(Needs.KEY_ORDER),
  WALK_KEY_STEP(Needs.KEY_ORDER),
  WALK_KEY_STEP_FROM_START(Needs.KEY_ORDER),
  UNKEYED_DUE(Needs.KEY_ORDER),
  PARKED_OF_KEYS(Needs.PARKED_BLOCKS),
  FOLLOWERS(Needs.KEY_ORDER),
  LOCK_FOLLOWERS(Needs.KEY_ORDER),
  LEASE_FOLLOWERS(Needs.KEY_ORDER),
  CANDIDATES,
  PROBE_CANDIDATES,
  LOCK_CANDIDATES,
  LOCK_PROBE_CANDIDATES,
  LEASE,
  LEASE_RUN(Needs.KEY_ORDER),
  DELETE,
  DONE,
  FAIL,
  SNOOZE,
  PARK,
  PARKED_AT,
  RELEASE,
  RELEASE_TO,
  EXTEND,
  CLEANUP,
  VACUUM,
  ANALYZE,
  STATS_STALE,
  COUNT_PENDING,
  STATS,
  BLOCKED_KEYS(Needs.PARKED_BLOCKS),
  PARKED,
  FAILING,
  REPLAY,
  REPLAY_ALL,
  DISCARD,
  INBOX_CLEANUP,
  // parts of the statements above
  HEAD(Needs.FRAGMENT),
  NO_PRIOR(Needs.FRAGMENT),
  FIRST_PENDING(Needs.FRAGMENT),
  BEHIND_PARKED_COUNT(Needs.FRAGMENT),
  BLOCKED_KEYS_COUNT(Needs.FRAGMENT),
  FINISHED_IDS(Needs.FRAGMENT),
  JOBS_CLAIM_FILTER(Needs.FRAGMENT),
  JOBS_CLAIM_SET(Needs.FRAGMENT),
  JOBS_DONE_SET(Needs.FRAGMENT),
  JOBS_CLAIMED_NAMES(Needs.FRAGMENT),
  // the adds on the caller's connection, filled in by the writer
  INSERT(Needs.CALLER),
  INSERT_SKIPPING(Needs.CALLER),
  INSERT_NOTIFY(Needs.CALLER),
  INSERT_LOCKING(Needs.CALLER),
  ON_CONFLICT(Needs.FRAGMENT),
  KEY_LOCK(Needs.FRAGMENT),
  KEY_LOCKS(Needs.FRAGMENT),
  LOCK_KEYS(Needs.CALLER),
  LOCK_EVERY_STRIPE(Needs.CALLER),
  // jobs by id, dedupe key and name
  JOB_ID_BY_DEDUPE_KEY(Needs.CALLER),
  JOB_CANCEL(Needs.CALLER),
  JOB_CANCEL_BY_DEDUPE_KEY(Needs.CALLER),
  JOB_COUNTS_BY_NAME(Needs.CALLER),
  JOB_GROUPS(Needs.CALLER),
  JOBS_OVERDUE_UNHANDLED(Needs.CALLER),
  // pausing job names, in the job table's flow table
  JOB_PAUSE(Needs.CALLER),
  JOB_RESUME(Needs.CALLER),
  JOBS_PAUSED(Needs.CALLER),
  // admission of grouped and limited jobs, on the job table and its flow table
  ADMISSION_ANY(Needs.CALLER),
  ADMISSION_GATE(Needs.CALLER),
  ADMISSION_GATE_ROW(Needs.CALLER),
  ADMISSION_FRONT(Needs.CALLER),
  ADMISSION_TAIL(Needs.CALLER),
  ADMISSION_TAIL_UNGROUPED(Needs.CALLER),
  ADMISSION_PROMOTE_FROM(Needs.CALLER),
  ADMISSION_PROMOTE(Needs.CALLER),
  ADMISSION_UNCLAIMED(Needs.CALLER),
  ADMISSION_UNADMIT_PAUSED(Needs.CALLER),
  ADMISSION_ADMITTED(Needs.CALLER),
  ADMISSION_WINDOW(Needs.CALLER),
  ADMISSION_ADMIT_FIRST(Needs.CALLER),
  ADMISSION_ADMIT(Needs.CALLER),
  NOTIFY(Needs.CALLER),
  // a dispatcher's start and its registration on an outbox
  CHECK_COLUMNS(Needs.CALLER),
  REGISTRATION_FORGET(Needs.CALLER),
  REGISTRATION_LIVE(Needs.CALLER),
  REGISTRATION_INSERT(Needs.CALLER),
  REGISTRATION_SEEN(Needs.CALLER),
  REGISTRATION_DELETE(Needs.CALLER),
  LISTEN(Needs.CALLER),
  UNLISTEN(Needs.CALLER),
  // recurring jobs, on the job table and its schedules table
  DB_NOW(Needs.CALLER),
  RECURRING_BEGIN(Needs.CALLER),
  RECURRING_DECLARED(Needs.CALLER),
  RECURRING_INSERT(Needs.CALLER),
  RECURRING_REDECLARE(Needs.CALLER),
  RECURRING_REPAYLOAD(Needs.CALLER),
  RECURRING_LAST_RUN(Needs.CALLER),
  RECURRING_UNFINISHED_RUN(Needs.CALLER),
  RECURRING_INSERT_RUN(Needs.CALLER),
  RECURRING_FIRED(Needs.CALLER),
  RECURRING_MOVED(Needs.CALLER),
  RECURRING_LIST(Needs.CALLER),
  RECURRING_REMOVE(Needs.CALLER),
  RECURRING_DUE(Needs.CALLER),
  RECURRING_SOONEST(Needs.CALLER),
  RECURRING_RUN_NOW(Needs.CALLER),
  // the operations console's reads and bulk actions
  CONSOLE_COUNTS(Needs.CALLER),
  CONSOLE_LEASES(Needs.CALLER),
  CONSOLE_PARKED_PAGE(Needs.CALLER),
  CONSOLE_FAILING_PAGE(Needs.CALLER),
  CONSOLE_PARKED_IDS(Needs.CALLER),
  CONSOLE_REPLAY_IDS(Needs.CALLER),
  CONSOLE_DISCARD_IDS(Needs.CALLER),
  CONSOLE_INBOX_COUNT(Needs.CALLER),
  CONSOLE_ROW(Needs.CALLER),
  CONSOLE_ERROR_CONTAINS(Needs.FRAGMENT),
  // pruning the keys table of an outbox ordered by key (MySQL, MariaDB, H2)
  KEYS_PRUNE_SCAN(Needs.CALLER),
  KEYS_PRUNE_LOCK(Needs.CALLER),
  KEYS_PRUNE_DELETE(Needs.CALLER);

  /** Which tables a statement exists for. */
  enum Needs {
    ANY_TABLE,
    KEY_ORDER,
    PARKED_BLOCKS,
    /** Not a queue table's: filled in by the code that runs it. */
    CALLER,
    /** A part of a statement, filled in by the code that runs it: {@code <name>.fragment.sql}. */
    FRAGMENT
  }

  private final Needs needs;

  Sql() {
    this(Needs.ANY_TABLE);
  }

  Sql(Needs needs) {
    this.needs = needs;
  }

  /** The statement's file name in the catalogue, without {@code .sql}. */
  String file() {
    String file = name().toLowerCase(Locale.ROOT).replace('_', '-');
    return needs == Needs.FRAGMENT ? file + ".fragment" : file;
  }

  /** Whether the statement exists for a table ordered as {@code order} says (null: not at all). */
  boolean existsFor(KeyOrder order) {
    return switch (needs) {
      case ANY_TABLE -> true;
      case KEY_ORDER -> order != null;
      case PARKED_BLOCKS -> order != null && order.parkedBlocks();
      case CALLER, FRAGMENT -> false;
    };
  }
}

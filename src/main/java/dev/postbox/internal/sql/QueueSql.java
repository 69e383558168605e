package dev.postbox.internal.sql;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.SqlText;
import dev.postbox.internal.jdbc.Statements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The statements of one queue table in one database, filled in once from the database's home
 * ({@link Home}), asked for by name ({@link Sql}), and the code that binds and runs the outcome
 * statements. Thread-safe; runs on the connection it is given, never commits unless a claim
 * strategy says so.
 */
public final class QueueSql {
  final Dialect dialect;
  final Home home;
  final Statements statements;
  final List<String> beginClaim;
  final int window;
  // per-key order (null: the table has none); the runs a claim adds behind the heads it took
  final KeyOrder keyOrder;
  private final String table;
  private final Map<Sql, String> texts = new EnumMap<>(Sql.class);
  private final String walkKeysFromStart;
  private final FinishTexts finishTexts;

  private QueueSql(Dialect dialect, Home home, QueueTable<?> t, int batchSize) {
    this.dialect = dialect;
    this.home = home;
    this.table = t.name();
    this.statements = new Statements(dialect.inProcess());
    this.beginClaim = home.beginClaim();
    this.window = 2 * batchSize;
    this.keyOrder = t.keyOrder();
    for (Sql name : Sql.values()) {
      String template = name.existsFor(keyOrder) ? home.template(name) : null;
      if (template != null) {
        texts.put(name, fill(template, name, t, batchSize));
      }
    }
    String walk = keyOrder == null ? null : home.template(Sql.WALK_KEYS);
    this.walkKeysFromStart =
        walk == null ? null : fill(walk.replace("{after}", ""), Sql.WALK_KEYS, t, batchSize);
    this.finishTexts =
        new FinishTexts(
            text(Sql.DELETE),
            text(Sql.DONE),
            text(Sql.CLAIM_AFTER_FINISH),
            text(Sql.CLAIM_RUNS_AFTER_FINISH));
  }

  /** The statements of {@code table} on {@code dialect}'s database, claims of {@code batchSize}. */
  public static QueueSql of(Dialect dialect, QueueTable<?> table, int batchSize) {
    return new QueueSql(dialect, Home.of(dialect.database()), table, batchSize);
  }

  /** The bounded DELETE of old inbox rows of {@code table}. Params: -retention millis, limit. */
  public static String inboxCleanup(Dialect dialect, String table) {
    return Home.text(Sql.INBOX_CLEANUP, dialect).replace("{table}", table);
  }

  /** The statement {@code name} of this table, filled in; null if this database has none. */
  String text(Sql name) {
    return texts.get(name);
  }

  /** The walk over keys from the first key ({@link Sql#WALK_KEYS} with nothing before it). */
  String walkKeysFromStart() {
    return walkKeysFromStart;
  }

  /** {@code template} of statement {@code name} filled in for table {@code t}. */
  private String fill(String template, Sql name, QueueTable<?> t, int batchSize) {
    KeyOrder order = t.keyOrder();
    // the window of a claim by id is searched for heads in Java and under the locks
    boolean heads = name != Sql.CANDIDATES;
    String finished =
        name == Sql.CLAIM_AFTER_FINISH || name == Sql.CLAIM_RUNS_AFTER_FINISH
            ? home.template(Sql.FINISHED_IDS)
            : null;
    String filter =
        t.clauses().claimFilter()
            + (order == null || !heads ? "" : order.headFilter(t.name(), finished, home));
    return template
        .replace("{after}", "{key} > ? AND ")
        .replace("{table}", t.name())
        .replace("{columns}", t.columns().item())
        .replace("{filter}", filter)
        .replace("{key}", order == null ? "NULL" : order.keyColumn())
        .replace(
            "{blockedKeys}",
            order == null || !order.parkedBlocks() ? "0" : Home.common(Sql.BLOCKED_KEYS_COUNT))
        .replace("{blocked}", order == null ? "0" : order.behindParkedCount(t.name()))
        .replace("{key}", order == null ? "NULL" : order.keyColumn())
        .replace("{table}", t.name())
        .replace("{claimSet}", t.clauses().claimSet())
        .replace("{pending}", t.clauses().pending())
        .replace("{unleaseSet}", t.clauses().unleaseSet())
        .replace("{replayedState}", t.clauses().replayedState())
        .replace("{doneSet}", t.clauses().doneSet())
        .replace("{ref}", t.columns().ref())
        .replace("{topic}", t.columns().topic())
        .replace("{listedKey}", t.columns().listedKey())
        .replace("{limit}", Integer.toString(batchSize))
        .replace("{window}", Integer.toString(2 * batchSize))
        .replace("{windowKey}", order == null ? "" : ", " + order.keyColumn() + " AS claim_key")
        .transform(filled -> Home.clock(filled, dialect));
  }

  public Dialect dialect() {
    return dialect;
  }

  public String table() {
    return table;
  }

  /** This database's claim, for the instance {@code owner}, leasing for {@code lease}. */
  public ClaimStrategy claims(String owner, Duration lease, boolean keepDone) {
    long millis = lease.toMillis();
    return switch (home.claiming) {
      case ONE_STATEMENT -> new OneStatementClaim(this, owner, millis, keepDone);
      case WRITE_LOCKED_TRANSACTION -> new WriteLockedClaim(this, owner, millis, keepDone);
      case LOCK_BY_ID -> new LockByIdClaim(this, owner, millis, keepDone);
      case LOCK_BY_ID_PIPELINED -> new PipelinedClaim(this, owner, millis, keepDone);
    };
  }

  // ---- statements filled per call: ids, exclusions, the finish inside a claim

  private static String ids(String template, int n) {
    return template.replace("{ids}", SqlText.marks(n));
  }

  /** The statement {@code name}, whose list of ids (or keys) has {@code n} of them. */
  String withIds(Sql name, int n) {
    return ids(text(name), n);
  }

  private static String excluded(String template, int n) {
    return template.replace(
        "{excluded}", n == 0 ? "" : " AND id NOT IN (" + SqlText.marks(n) + ")");
  }

  String probe(Probe probe) {
    return excluded(shaped(text(Sql.PROBE), probe), probe.excluded().size());
  }

  /** The candidates' read; a probe's ({@code probe} not null) from the end it asks for. */
  String candidates(int excluded, Probe probe) {
    return excluded(
        probe == null ? text(Sql.CANDIDATES) : shaped(text(Sql.PROBE_CANDIDATES), probe), excluded);
  }

  String lockCandidates(int n, Probe probe) {
    return ids(
        probe == null ? text(Sql.LOCK_CANDIDATES) : shaped(text(Sql.LOCK_PROBE_CANDIDATES), probe),
        n);
  }

  /**
   * A probe statement (newest first in every home) shaped as {@code probe} asks: oldest due first,
   * and only rows never attempted if fresh (see {@link Probe}).
   */
  private static String shaped(String template, Probe probe) {
    String t =
        probe.oldest()
            ? template.replace("ORDER BY id DESC", "ORDER BY available_at, id")
            : template;
    return t.replace("{excluded}", (probe.fresh() ? " AND attempts = 0" : "") + "{excluded}");
  }

  /** The finish of {@code n} rows: {@link Sql#DONE} if they are kept, else delete. */
  String finishSql(int n, boolean keepDone) {
    return finishTexts.text(FinishTexts.Form.FINISH, n, keepDone);
  }

  String claimAfterFinish(int n, boolean keepDone) {
    return finishTexts.text(FinishTexts.Form.CLAIM, n, keepDone);
  }

  /** The claim of heads and the runs behind them, where the database does it in one statement. */
  String claimRuns() {
    return text(Sql.CLAIM_RUNS);
  }

  /** {@link #claimRuns} that first finishes {@code n} delivered rows. */
  String claimRunsAfterFinish(int n, boolean keepDone) {
    return finishTexts.text(FinishTexts.Form.CLAIM_RUNS, n, keepDone);
  }

  /** The key column a claimed row keeps its order by; null if the table is not ordered. */
  String keyColumn() {
    return keyOrder == null ? null : keyOrder.keyColumn();
  }

  /** Whether this database claims runs in its claim statement ({@link #claimRuns}). */
  boolean runsInClaim() {
    return texts.containsKey(Sql.CLAIM_RUNS);
  }

  /** The next rows behind {@code heads} heads: a UNION ALL of {@link Sql#FOLLOWERS}. */
  String followers(int heads) {
    StringBuilder sql = new StringBuilder();
    for (int i = 0; i < heads; i++) {
      sql.append(i == 0 ? "" : " UNION ALL ")
          .append(text(Sql.FOLLOWERS).replace("{n}", Integer.toString(i)));
    }
    return sql.toString();
  }

  /** Binds {@code ids} (if any) from parameter {@code p}; returns the next parameter's index. */
  static int bindIds(PreparedStatement ps, int p, List<Long> ids) throws SQLException {
    if (ids != null) {
      for (long id : ids) {
        ps.setLong(p++, id);
      }
    }
    return p;
  }

  /** Binds a finish: leased_by, claims, the ids padded ({@link FinishTexts}). Returns the next. */
  static int bindFence(PreparedStatement ps, int p, String owner, int claims, List<Long> ids)
      throws SQLException {
    ps.setString(p++, owner);
    ps.setInt(p++, claims);
    return bindIds(ps, p, FinishTexts.padded(ids));
  }

  // ---- outcomes, fenced by (leased_by, claims)

  /** Finishes delivered rows ({@link Sql#DELETE} or {@code done}); returns how many. */
  public int finish(Connection c, String owner, int claims, List<Long> ids, boolean keepDone)
      throws SQLException {
    return statements.with(
        c,
        finishSql(ids.size(), keepDone),
        ps -> {
          bindFence(ps, 1, owner, claims, ids);
          return ps.executeUpdate();
        });
  }

  /** {@link Sql#FAIL}: retry after {@code delayMillis}. False if the fence did not hold. */
  public boolean fail(
      Connection c, long id, String owner, int claims, int attempts, long delayMillis, String error)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(text(Sql.FAIL))) {
      ps.setInt(1, attempts);
      ps.setLong(2, delayMillis);
      ps.setString(3, error);
      ps.setLong(4, id);
      ps.setString(5, owner);
      ps.setInt(6, claims);
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * {@link Sql#SNOOZE}: due again after {@code delayMillis}, the attempt refunded if its claim
   * counted one ({@code charged}). False if the fence did not hold or the row was snoozed {@code
   * maxSnoozes} times already.
   */
  public boolean snooze(
      Connection c,
      long id,
      String owner,
      int claims,
      boolean charged,
      long delayMillis,
      String reason,
      int maxSnoozes)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(text(Sql.SNOOZE))) {
      ps.setInt(1, charged ? 1 : 0);
      ps.setLong(2, delayMillis);
      ps.setString(3, reason);
      ps.setLong(4, id);
      ps.setString(5, owner);
      ps.setInt(6, claims);
      ps.setInt(7, maxSnoozes);
      return ps.executeUpdate() == 1;
    }
  }

  /** {@link Sql#PARK}. False if the fence did not hold. */
  public boolean park(Connection c, long id, String owner, int claims, int attempts, String error)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(text(Sql.PARK))) {
      ps.setInt(1, attempts);
      ps.setString(2, error);
      ps.setLong(3, id);
      ps.setString(4, owner);
      ps.setInt(5, claims);
      return ps.executeUpdate() == 1;
    }
  }

  /** {@link Sql#PARKED_AT}: true if row {@code id} stands parked by its claim {@code claims}. */
  public boolean parkedAt(Connection c, long id, int claims) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(text(Sql.PARKED_AT))) {
      ps.setLong(1, id);
      ps.setInt(2, claims);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }

  /**
   * {@link Sql#RELEASE_TO}: hands a row back, due again when it was due before its claim ({@code
   * due}), so it keeps its turn among the others; {@link Sql#RELEASE} (due now) if {@code due} is
   * null. The attempt its claim counted is refunded ({@code charged}: whether it counted one).
   * False if the fence did not hold.
   */
  public boolean release(
      Connection c, long id, String owner, int claims, Instant due, boolean charged)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(text(due == null ? Sql.RELEASE : Sql.RELEASE_TO))) {
      int p = 1;
      ps.setInt(p++, charged ? 1 : 0);
      if (due != null) {
        dialect.bindInstant(ps, p++, due);
      }
      ps.setLong(p++, id);
      ps.setString(p++, owner);
      ps.setInt(p, claims);
      return ps.executeUpdate() == 1;
    }
  }

  /** {@link Sql#EXTEND}: renews the leases of {@code ids} still held by {@code owner}. */
  public void extend(Connection c, long leaseMillis, String owner, List<Long> ids)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(withIds(Sql.EXTEND, ids.size()))) {
      ps.setLong(1, leaseMillis);
      ps.setString(2, owner);
      bindIds(ps, 3, ids);
      ps.executeUpdate();
    }
  }

  /** {@link Sql#CLEANUP}: deletes up to {@code limit} done rows older than retention. */
  public int cleanup(Connection c, Duration retention, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(text(Sql.CLEANUP))) {
      ps.setLong(1, -retention.toMillis());
      ps.setInt(2, limit);
      return ps.executeUpdate();
    }
  }

  /** {@link Sql#VACUUM}, or null where the database needs none. */
  public String vacuum() {
    return text(Sql.VACUUM);
  }

  /** {@link Sql#STATS_STALE}, or null where the database needs none. */
  public String statsStale() {
    return text(Sql.STATS_STALE);
  }

  /** {@link Sql#ANALYZE}, or null where the database needs none. */
  public String analyze() {
    return text(Sql.ANALYZE);
  }
}

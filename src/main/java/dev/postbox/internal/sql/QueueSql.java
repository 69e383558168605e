package dev.postbox.internal.sql;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.SqlText;
import dev.postbox.internal.jdbc.Statements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The statements of one queue table in one database, filled in once from the database's home
 * ({@link QueueSqlHome}), and the code that binds and runs each. Thread-safe; runs on the
 * connection it is given, never commits unless a claim strategy says so.
 */
public final class QueueSql {
  final Dialect dialect;
  final Statements statements;
  final boolean claimReturnsDue; // claimed rows carry their available_at from before the claim
  final boolean claimReturnsCharge; // claimed rows say whether the claim counted an attempt
  private final String table;
  private final QueueSqlHome home;
  final List<String> beginClaim;
  final int window;
  final String claim;
  private final String claimAfterFinish;
  private final FinishTexts finishTexts;
  private final String probe;
  private final String candidates;
  private final String probeCandidates;
  private final String lockCandidates;
  private final String lockProbeCandidates;
  private final String lease;
  private final String leaseRun;
  private final String delete;
  private final String done;
  final String fail;
  final String park;
  final String parkedAt;
  final String release;
  final String releaseTo;
  private final String extend;
  final String cleanup;
  private final String vacuum;
  final String countPending;
  final String stats;
  final String parked;
  final String failing;
  final String replay;
  final String replayAll;
  final String discard;
  final String blockedKeys; // null unless parked rows block their keys
  // per-key order (null: the table has none); the runs a claim adds behind the heads it took
  final KeyOrder keyOrder;
  private final String claimRuns;
  private final String claimRunsAfterFinish;
  private final String followers;
  private final String lockFollowers;
  private final String leaseFollowers;
  final String walkKeys;
  final String claimHeads;
  final String windowRows;
  private final String leaseHeads;
  final String walkKeysFromStart;
  final String walkKeyStep;
  final String unkeyedDue;
  final String walkKeyStepFromStart;
  final String parkedOfKeys; // null unless parked rows block their keys

  private QueueSql(Dialect dialect, QueueSqlHome home, QueueTable<?> t, int batchSize) {
    this.dialect = dialect;
    this.home = home;
    this.table = t.name();
    this.statements = new Statements(dialect.inProcess());
    this.beginClaim = home.beginClaim();
    this.window = 2 * batchSize;
    this.keyOrder = t.keyOrder();
    this.claim = fill(home.claim(), t, batchSize);
    this.claimAfterFinish = fill(home.claimAfterFinish(), t, batchSize, FINISHED);
    this.claimRuns = keyOrder == null ? null : fill(home.claimRuns(), t, batchSize);
    this.claimRunsAfterFinish =
        keyOrder == null ? null : fill(home.claimRunsAfterFinish(), t, batchSize, FINISHED);
    this.followers = keyOrder == null ? null : fill(home.followers(), t, batchSize);
    this.lockFollowers = keyOrder == null ? null : fill(home.lockFollowers(), t, batchSize);
    this.leaseFollowers = keyOrder == null ? null : fill(home.leaseFollowers(), t, batchSize);
    this.walkKeys = walk(t, batchSize, "{key} > ? AND ");
    this.claimHeads = keyOrder == null ? null : fill(home.claimHeads(), t, batchSize);
    this.windowRows = keyOrder == null ? null : fill(home.windowRows(), t, batchSize);
    this.leaseHeads = keyOrder == null ? null : fill(home.leaseHeads(), t, batchSize);
    this.walkKeysFromStart = walk(t, batchSize, "");
    this.walkKeyStep = keyOrder == null ? null : fill(home.walkKeyStep(), t, batchSize);
    this.unkeyedDue = keyOrder == null ? null : fill(home.unkeyedDue(), t, batchSize);
    this.walkKeyStepFromStart =
        keyOrder == null ? null : fill(home.walkKeyStepFromStart(), t, batchSize);
    this.parkedOfKeys =
        keyOrder != null && keyOrder.parkedBlocks()
            ? fill(home.parkedOfKeys(), t, batchSize)
            : null;
    this.probe = fill(home.probe(), t, batchSize);
    // the window of a claim by id is searched for heads in Java and under the locks
    this.candidates = fill(home.candidates(), t, batchSize, null, false);
    this.probeCandidates = fill(home.probeCandidates(), t, batchSize);
    this.lockCandidates = fill(home.lockCandidates(), t, batchSize);
    this.lockProbeCandidates = fill(home.lockProbeCandidates(), t, batchSize);
    this.lease = fill(home.lease(), t, batchSize);
    this.leaseRun = keyOrder == null ? null : fill(home.leaseRun(), t, batchSize);
    this.delete = fill(home.delete(), t, batchSize);
    this.done = fill(home.done(), t, batchSize);
    this.fail = fill(home.fail(), t, batchSize);
    this.park = fill(home.park(), t, batchSize);
    this.parkedAt = fill(home.parkedAt(), t, batchSize);
    this.release = fill(home.release(), t, batchSize);
    this.releaseTo = fill(home.releaseTo(), t, batchSize);
    this.claimReturnsDue = home.claimReturnsDue();
    this.claimReturnsCharge = home.claimReturnsCharge();
    this.extend = fill(home.extend(), t, batchSize);
    this.cleanup = fill(home.cleanup(), t, batchSize);
    this.vacuum = fill(home.vacuum(), t, batchSize);
    this.countPending = fill(home.countPending(), t, batchSize);
    this.stats = fill(home.stats(), t, batchSize);
    this.parked = fill(home.parked(), t, batchSize);
    this.failing = fill(home.failing(), t, batchSize);
    this.replay = fill(home.replay(), t, batchSize);
    this.replayAll = fill(home.replayAll(), t, batchSize);
    this.discard = fill(home.discard(), t, batchSize);
    this.blockedKeys =
        keyOrder != null && keyOrder.parkedBlocks() ? fill(home.blockedKeys(), t, batchSize) : null;
    this.finishTexts = new FinishTexts(delete, done, claimAfterFinish, claimRunsAfterFinish);
  }

  /** The statements of {@code table} on {@code dialect}'s database, claims of {@code batchSize}. */
  public static QueueSql of(Dialect dialect, QueueTable<?> table, int batchSize) {
    return new QueueSql(dialect, home(dialect.database()), table, batchSize);
  }

  /** The bounded DELETE of old inbox rows of {@code table}. Params: -retention millis, limit. */
  public static String inboxCleanup(Database database, String table) {
    return home(database).inboxCleanup().replace("{table}", table);
  }

  private static QueueSqlHome home(Database database) {
    return switch (database) {
      case POSTGRESQL -> new PostgresQueueSql();
      case MYSQL -> new MySqlQueueSql();
      case H2 -> new H2QueueSql();
      case SQLITE -> new SqliteQueueSql();
    };
  }

  // the rows a combined claim finishes, which its other parts still see as pending
  private static final String FINISHED = "SELECT finished$id FROM claim$finished";

  private String fill(String template, QueueTable<?> t, int batchSize) {
    return fill(template, t, batchSize, null);
  }

  /** {@code finished}: a subquery of rows the statement finishes, or null. */
  private String fill(String template, QueueTable<?> t, int batchSize, String finished) {
    return fill(template, t, batchSize, finished, true);
  }

  /** {@code heads}: whether {@code {filter}} keeps keyed rows to the heads of their keys. */
  private String fill(
      String template, QueueTable<?> t, int batchSize, String finished, boolean heads) {
    if (template == null) {
      return null;
    }
    KeyOrder order = t.keyOrder();
    String filter =
        t.claimFilter()
            + (order == null || !heads
                ? ""
                : order.headFilter(t.name(), finished, home.headCheckPerState()));
    return template
        .replace("{table}", t.name())
        .replace("{columns}", t.itemColumns())
        .replace("{filter}", filter)
        .replace("{key}", order == null ? "NULL" : order.keyColumn())
        .replace(
            "{blockedKeys}",
            order == null || !order.parkedBlocks()
                ? "0"
                : "(SELECT COUNT(DISTINCT {key}) FROM {table} WHERE state = 2 AND {key} IS NOT NULL)")
        .replace(
            "{blocked}", order == null ? "0" : order.behindParkedCount(t.name(), dialect.now()))
        .replace("{key}", order == null ? "NULL" : order.keyColumn())
        .replace("{table}", t.name())
        .replace("{claimSet}", t.claimSet())
        .replace("{doneSet}", t.doneSet())
        .replace("{ref}", t.refColumn())
        .replace("{topic}", t.topicColumn())
        .replace("{listedKey}", t.listedKey())
        .replace("{limit}", Integer.toString(batchSize))
        .replace("{window}", Integer.toString(2 * batchSize))
        .replace("{windowKey}", order == null ? "" : ", " + order.keyColumn() + " AS claim_key");
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
    return switch (home.claiming()) {
      case ONE_STATEMENT -> new OneStatementClaim(this, owner, millis, keepDone);
      case WRITE_LOCKED_TRANSACTION -> new WriteLockedClaim(this, owner, millis, keepDone);
      case LOCK_BY_ID -> new LockByIdClaim(this, owner, millis, keepDone);
      case LOCK_BY_ID_PIPELINED -> new PipelinedClaim(this, owner, millis, keepDone);
    };
  }

  // ---- statements filled per call: ids, exclusions, the finish inside a claim

  /** The home's walk over keys, starting where {@code after} says; null if there is none. */
  private String walk(QueueTable<?> t, int batchSize, String after) {
    String walk = t.keyOrder() == null ? null : home.walkKeys();
    return walk == null ? null : fill(walk.replace("{after}", after), t, batchSize);
  }

  private static String ids(String template, int n) {
    return template.replace("{ids}", SqlText.marks(n));
  }

  private static String excluded(String template, int n) {
    return template.replace(
        "{excluded}", n == 0 ? "" : " AND id NOT IN (" + SqlText.marks(n) + ")");
  }

  String probe(Probe probe) {
    return excluded(shaped(this.probe, probe), probe.excluded().size());
  }

  /** The candidates' read; a probe's ({@code probe} not null) from the end it asks for. */
  String candidates(int excluded, Probe probe) {
    return excluded(probe == null ? candidates : shaped(probeCandidates, probe), excluded);
  }

  String lockCandidates(int n, Probe probe) {
    return ids(probe == null ? lockCandidates : shaped(lockProbeCandidates, probe), n);
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

  String lease(int n) {
    return ids(lease, n);
  }

  /** {@link QueueSqlHome#leaseRun} of {@code n} rows. */
  String leaseRun(int n) {
    return ids(leaseRun, n);
  }

  /** The finish of {@code n} rows: {@link QueueSqlHome#done} if they are kept, else delete. */
  String finishSql(int n, boolean keepDone) {
    return finishTexts.text(FinishTexts.Form.FINISH, n, keepDone);
  }

  String claimAfterFinish(int n, boolean keepDone) {
    return finishTexts.text(FinishTexts.Form.CLAIM, n, keepDone);
  }

  /** The claim of heads and the runs behind them, where the database does it in one statement. */
  String claimRuns() {
    return claimRuns;
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
    return claimRuns != null;
  }

  /** The next rows behind {@code heads} heads: a UNION ALL of {@link QueueSqlHome#followers}. */
  String followers(int heads) {
    StringBuilder sql = new StringBuilder();
    for (int i = 0; i < heads; i++) {
      sql.append(i == 0 ? "" : " UNION ALL ").append(followers.replace("{n}", Integer.toString(i)));
    }
    return sql.toString();
  }

  String lockFollowers(int n) {
    return ids(lockFollowers, n);
  }

  /** {@link QueueSqlHome#parkedOfKeys} of {@code n} keys. */
  String parkedOfKeys(int n) {
    return ids(parkedOfKeys, n);
  }

  String leaseHeads(int n) {
    return ids(leaseHeads, n);
  }

  String leaseFollowers(int n) {
    return ids(leaseFollowers, n);
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

  /** Finishes delivered rows ({@link QueueSqlHome#delete} or {@code done}); returns how many. */
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

  /**
   * {@link QueueSqlHome#fail}: retry after {@code delayMillis}. False if the fence did not hold.
   */
  public boolean fail(
      Connection c, long id, String owner, int claims, int attempts, long delayMillis, String error)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(fail)) {
      ps.setInt(1, attempts);
      ps.setLong(2, delayMillis);
      ps.setString(3, error);
      ps.setLong(4, id);
      ps.setString(5, owner);
      ps.setInt(6, claims);
      return ps.executeUpdate() == 1;
    }
  }

  /** {@link QueueSqlHome#park}. False if the fence did not hold. */
  public boolean park(Connection c, long id, String owner, int claims, int attempts, String error)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(park)) {
      ps.setInt(1, attempts);
      ps.setString(2, error);
      ps.setLong(3, id);
      ps.setString(4, owner);
      ps.setInt(5, claims);
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * {@link QueueSqlHome#parkedAt}: true if row {@code id} stands parked by its claim {@code
   * claims}.
   */
  public boolean parkedAt(Connection c, long id, int claims) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(parkedAt)) {
      ps.setLong(1, id);
      ps.setInt(2, claims);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }

  /**
   * {@link QueueSqlHome#releaseTo}: hands a row back, due again when it was due before its claim
   * ({@code due}), so it keeps its turn among the others; {@link QueueSqlHome#release} (due now) if
   * {@code due} is null. The attempt its claim counted is refunded ({@code charged}: whether it
   * counted one). False if the fence did not hold.
   */
  public boolean release(
      Connection c, long id, String owner, int claims, Instant due, boolean charged)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(due == null ? release : releaseTo)) {
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

  /** {@link QueueSqlHome#extend} of {@code n} rows. */
  String extend(int n) {
    return ids(extend, n);
  }

  /** {@link QueueSqlHome#extend}: renews the leases of {@code ids} still held by {@code owner}. */
  public void extend(Connection c, long leaseMillis, String owner, List<Long> ids)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(extend(ids.size()))) {
      ps.setLong(1, leaseMillis);
      ps.setString(2, owner);
      bindIds(ps, 3, ids);
      ps.executeUpdate();
    }
  }

  /** {@link QueueSqlHome#cleanup}: deletes up to {@code limit} done rows older than retention. */
  public int cleanup(Connection c, Duration retention, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(cleanup)) {
      ps.setLong(1, -retention.toMillis());
      ps.setInt(2, limit);
      return ps.executeUpdate();
    }
  }

  /** {@link QueueSqlHome#vacuum}, or null where the database needs none. */
  public String vacuum() {
    return vacuum;
  }
}

package dev.postbox.internal.lane;

import dev.postbox.internal.Joins;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Vacuums a PostgreSQL queue table after every so many finished rows. Each claim and each delete
 * leaves a dead entry at the head of the claim index, which every later claim walks over until a
 * vacuum removes it; autovacuum wakes once a minute at best (and may be off), so a long drain slows
 * down as they pile up. Measured here: a 500,000-row drain kept its speed (65k/s against 44k/s)
 * with a vacuum every 30,000 rows. Runs on its own virtual thread, one at a time; if the database
 * refuses (not the table's owner), it says so once and stops trying; any other failure is logged
 * and the vacuum is tried again after the next so many rows. {@link #close} cancels a vacuum under
 * way and waits for its thread: none outlives its dispatcher.
 */
final class Vacuum {
  private static final Logger log = LoggerFactory.getLogger(Vacuum.class);
  private static final long CHECK_NANOS = 10_000_000_000L;

  private final DataSource dataSource;
  private final String statement;
  private final long everyRows;
  private final String instanceId;
  private final Pattern namesTable;
  private final String statsStale; // null: no statistics guard
  private final String analyze;
  private final AtomicLong sinceLast = new AtomicLong();
  private final AtomicLong lastCheck = new AtomicLong(); // nanos of the last statistics check
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile boolean checkedOnce;
  private volatile boolean refused;
  private volatile boolean closed;
  private volatile Thread thread; // the latest vacuum's
  private volatile Statement executing; // the vacuum under way, to cancel on close

  /**
   * {@code statement} null or {@code everyRows} 0: never vacuums nor checks statistics. {@code
   * statsStale} (null: none) says whether the planner's statistics are missing or far behind,
   * {@code analyze} refreshes them.
   */
  Vacuum(
      DataSource dataSource,
      String statement,
      String statsStale,
      String analyze,
      long everyRows,
      String instanceId) {
    this.dataSource = dataSource;
    this.statement = statement;
    this.statsStale = statsStale;
    this.analyze = analyze;
    this.everyRows = statement == null ? 0 : everyRows;
    this.instanceId = instanceId;
    this.namesTable = statement == null ? null : namesTable(statement);
  }

  /**
   * Counts {@code rows} more finished rows; starts a vacuum when enough have piled up. Called on
   * the outcome writer's thread: never throws.
   */
  void finished(int rows) {
    if (everyRows == 0 || refused || closed) {
      return;
    }
    sinceLast.addAndGet(rows);
    startIfDue();
  }

  /**
   * The lane starts: its table's statistics are looked at now, on the vacuum's thread, so a table
   * bulk-loaded and never analysed is analysed while the first claims run.
   */
  void started() {
    if (everyRows > 0 && !refused && !closed) {
      startIfDue();
    }
  }

  private boolean vacuumDue() {
    return sinceLast.get() >= everyRows;
  }

  /**
   * A table bulk-loaded and never analysed has its claims planned blind: its statistics are looked
   * at with the first finished rows, then at most every {@link #CHECK_NANOS} while rows finish.
   */
  private boolean checkDue() {
    return statsStale != null
        && (!checkedOnce || System.nanoTime() - lastCheck.get() >= CHECK_NANOS);
  }

  /** Starts the vacuum's thread if it has work and is not running. */
  private void startIfDue() {
    if ((!vacuumDue() && !checkDue()) || !running.compareAndSet(false, true)) {
      return;
    }
    // a refusal is recorded before running is cleared, so it is seen here if it just happened
    if (refused || closed) {
      running.set(false);
      return;
    }
    try {
      Thread t = Thread.ofVirtual().name(instanceId + "-vacuum").unstarted(this::work);
      thread = t;
      t.start();
    } catch (Throwable e) {
      running.set(false);
      log.warn("{} - could not start {}, trying again later", instanceId, statement, e);
    }
  }

  /**
   * On the vacuum's thread: the statistics check if due, then the vacuum if due; and again for rows
   * that finished meanwhile (their {@link #finished} found this running and left them here).
   */
  private void work() {
    try {
      if (checkDue()) {
        checkedOnce = true;
        lastCheck.set(System.nanoTime());
        analyzeIfStale();
      }
      if (vacuumDue() && !refused && !closed) {
        sinceLast.set(0);
        run(statement);
      }
    } finally {
      running.set(false);
    }
    if (!refused && !closed) {
      startIfDue();
    }
  }

  /** Runs {@link #analyze} if the statistics are missing or far behind. */
  private void analyzeIfStale() {
    boolean stale;
    try {
      stale =
          Jdbc.autoCommit(
              dataSource,
              c -> {
                try (Statement s = c.createStatement();
                    var rs = s.executeQuery(statsStale)) {
                  return rs.next() && rs.getBoolean(1);
                }
              });
    } catch (SQLException | RuntimeException e) {
      log.debug("{} - checking the statistics failed: {}", instanceId, e.toString());
      return;
    }
    if (!stale) {
      return;
    }
    log.info(
        "{} - the planner's statistics of the table are missing or far behind its rows (never"
            + " analysed, or a bulk load): running {} so claims do not read every due row",
        instanceId,
        analyze);
    run(analyze);
  }

  private void run(String sql) {
    long started = System.nanoTime();
    try {
      SQLWarning refusal =
          Jdbc.autoCommit(
              dataSource,
              c -> {
                c.clearWarnings();
                try (Statement s = c.createStatement()) {
                  executing = s;
                  try {
                    // set before closed is read, as close sets closed before it reads executing:
                    // either this sees closed or close sees the statement to cancel
                    if (closed) {
                      return null;
                    }
                    s.execute(sql);
                  } finally {
                    executing = null; // before the connection goes back to the pool
                  }
                  // pgjdbc hands a non-owner's "skipping" WARNING to the statement; a driver may
                  // give it to the connection instead
                  SQLWarning found = refusalIn(s.getWarnings());
                  return found != null ? found : refusalIn(c.getWarnings());
                }
              });
      if (closed) {
        log.debug("{} - {} cancelled: the dispatcher is closing", instanceId, sql);
      } else if (refusal != null) {
        refuse(sql, refusal.getMessage() + " (SQLState " + refusal.getSQLState() + ")");
      } else {
        log.debug("{} - {} took {} ms", instanceId, sql, (System.nanoTime() - started) / 1_000_000);
      }
    } catch (SQLException e) {
      if (closed) {
        log.debug("{} - {} cancelled: the dispatcher is closing", instanceId, sql);
      } else if ("42501".equals(e.getSQLState())) {
        refuse(sql, e.toString());
      } else {
        // a dropped connection, a restarting server, a timeout: the next vacuum may well work
        log.warn(
            "{} - {} failed, trying again after {} more finished rows: {}",
            instanceId,
            sql,
            everyRows,
            e.toString());
      }
    } catch (Throwable e) {
      log.warn(
          "{} - {} failed, trying again after {} more finished rows",
          instanceId,
          sql,
          everyRows,
          e);
    }
  }

  /**
   * Starts no more vacuums, cancels one under way (a cancelled VACUUM keeps what it did not finish
   * as it was: nothing is lost), and waits up to 30 s for its thread; returns true if the caller
   * was interrupted meanwhile.
   */
  boolean close() {
    closed = true;
    Statement s = executing;
    if (s != null) {
      try {
        s.cancel();
      } catch (SQLException | RuntimeException e) {
        log.debug("{} - cancelling {} failed: {}", instanceId, statement, e.toString());
      }
    }
    Thread t = thread;
    return t != null && Joins.join(t, Duration.ofSeconds(30));
  }

  private void refuse(String sql, String why) {
    refused = true;
    log.warn(
        "{} - {} refused, not trying again (vacuum the table yourself, turn autovacuum on, or run"
            + " the dispatcher as the table's owner): {}",
        instanceId,
        sql,
        why);
  }

  /**
   * The first warning in {@code chain} saying the vacuum skipped the table (no rights to it), or
   * null. PostgreSQL reports it as a WARNING with SQLState 01000 and, in English, "skipping "t" ---
   * only table or database owner can vacuum it" (up to 15) or "permission denied to vacuum "t",
   * skipping it" (16+). The text is translated under other lc_messages but still names the table;
   * the other 01000 warnings of a vacuum that name the table also say it was skipped.
   */
  private SQLWarning refusalIn(SQLWarning chain) {
    for (SQLWarning w = chain; w != null; w = w.getNextWarning()) {
      String state = w.getSQLState();
      String message = w.getMessage() == null ? "" : w.getMessage();
      String lower = message.toLowerCase(Locale.ROOT);
      boolean english =
          lower.contains("permission denied")
              || (lower.contains("skipping")
                  && (lower.contains("owner") || lower.contains("superuser")));
      boolean warning = state == null || state.startsWith("01");
      if ("42501".equals(state) || (warning && (english || namesTable.matcher(message).find()))) {
        return w;
      }
      log.debug("{} - {}: {} (SQLState {})", instanceId, statement, message, state);
    }
    return null;
  }

  /**
   * Finds, as a whole word, the bare name of the table the statement ends with: {@code t} for
   * {@code VACUUM (ANALYZE) s.t}.
   */
  private static Pattern namesTable(String statement) {
    String last = statement.strip();
    last = last.substring(last.lastIndexOf(' ') + 1);
    String table = last.substring(last.lastIndexOf('.') + 1).replace("\"", "");
    String notInName = "[\\p{L}\\p{N}_$]";
    return Pattern.compile(
        "(?<!" + notInName + ")" + Pattern.quote(table) + "(?!" + notInName + ")");
  }
}

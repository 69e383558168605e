package dev.postbox.internal.console;

import dev.postbox.InvalidValueException;
import dev.postbox.internal.jdbc.SqlFunction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator can do from the console, each action one transaction on a connection of its own,
 * logged at INFO with what and how many (never a payload). The caller has checked the token.
 * Thread-safe.
 */
final class Actions {
  private static final Logger log = LoggerFactory.getLogger(Actions.class);

  /** Each action's parameters. */
  static final Map<String, Set<String>> PARAMS =
      Map.of(
          "replay", Set.of("table", "id"),
          "discard", Set.of("table", "id"),
          "replay-matching", Set.of("table", "topic", "key", "error"),
          "discard-matching", Set.of("table", "topic", "key", "error"),
          "cancel", Set.of("table", "id"),
          "run-now", Set.of("table", "name"),
          "pause", Set.of("table", "name"),
          "resume", Set.of("table", "name"));

  /** What an action did: how many rows or names it changed, and a sentence for the operator. */
  record Done(int changed, String message) {}

  private final ConsoleConfig config;
  private final ConsoleData data;

  Actions(ConsoleConfig config, ConsoleData data) {
    this.config = config;
    this.data = data;
  }

  /** Runs {@code action} with the checked parameters {@code p}. */
  Done run(String action, Params p) throws SQLException {
    ConsoleTable t = p.table(config);
    return switch (action) {
      case "replay", "discard" -> {
        long id = p.id();
        boolean replay = action.equals("replay");
        int n = inTransaction(c -> data.sql(c, t).act(c, replay, List.of(id)));
        yield done(
            n,
            (replay ? "replayed" : "discarded") + " parked row id=" + id + " of " + t.name(),
            "row id=" + id + " of " + t.name() + " is not parked (replayed or discarded already?)");
      }
      case "replay-matching", "discard-matching" -> {
        Filter f = p.filter();
        boolean replay = action.equals("replay-matching");
        int n =
            inTransaction(
                c -> {
                  ConsoleSql s = data.sql(c, t);
                  return s.act(c, replay, s.parkedIds(c, f, config.maxActionRows()));
                });
        yield done(
            n,
            (replay ? "replayed " : "discarded ")
                + n
                + " parked rows of "
                + t.name()
                + " matching "
                + describe(f),
            "no parked row of " + t.name() + " matches " + describe(f));
      }
      case "cancel" -> {
        long id = jobs(t, p).id();
        boolean n = inTransaction(c -> t.jobs().cancel(c, id));
        yield done(
            n ? 1 : 0,
            "cancelled job id=" + id + " of " + t.name(),
            "job id=" + id + " of " + t.name() + " is not waiting (running, finished or gone)");
      }
      case "run-now" -> {
        String name = jobs(t, p).name();
        boolean n = inTransaction(c -> t.jobs().runScheduleNow(c, name));
        yield done(
            n ? 1 : 0,
            "made the next run of schedule " + name + " of " + t.name() + " due now",
            "schedule " + name + " of " + t.name() + " does not exist or is due already");
      }
      case "pause", "resume" -> {
        String name = jobs(t, p).name();
        boolean pause = action.equals("pause");
        inTransaction(
            c -> {
              if (pause) {
                t.jobs().pause(c, name);
              } else {
                t.jobs().resume(c, name);
              }
              return null;
            });
        yield done(1, (pause ? "paused" : "resumed") + " job name " + name + " of " + t.name(), "");
      }
      default -> throw new IllegalArgumentException(action);
    };
  }

  /** {@code p}, checked to be on a job table. */
  private static Params jobs(ConsoleTable t, Params p) {
    if (t.jobs() == null) {
      throw new InvalidValueException("table", "must be a job table but " + t.name() + " is not");
    }
    return p;
  }

  private static Done done(int changed, String did, String nothing) {
    if (changed > 0) {
      log.info("console - {}", did);
      return new Done(changed, did);
    }
    log.info("console - nothing done: {}", nothing);
    return new Done(0, "nothing done: " + nothing);
  }

  private static String describe(Filter f) {
    if (f.all()) {
      return "no filter (every parked row, up to the cap)";
    }
    StringBuilder s = new StringBuilder();
    if (f.topic() != null) {
      s.append("topic=").append(f.topic()).append(' ');
    }
    if (f.key() != null) {
      s.append("key=").append(f.key()).append(' ');
    }
    if (f.error() != null) {
      s.append("error containing '").append(f.error()).append("' ");
    }
    return s.toString().trim();
  }

  /** Runs {@code work} in one transaction on a connection of its own: committed, or rolled back. */
  private <T> T inTransaction(SqlFunction<Connection, T> work) throws SQLException {
    try (Connection c = data.connection()) {
      c.setAutoCommit(false);
      try {
        T result = work.apply(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }
}

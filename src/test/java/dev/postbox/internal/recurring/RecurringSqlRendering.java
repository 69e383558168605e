package dev.postbox.internal.recurring;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.testing.RenderedSql;

/** Renders the recurring jobs' statements ({@link RecurringSql}) for {@code RenderedSqlTest}. */
public final class RecurringSqlRendering {
  private RecurringSqlRendering() {}

  /**
   * Renders into {@code out} every statement of the recurring jobs of the job table {@code jobs}.
   */
  public static void render(RenderedSql.Folder out, Dialect d, String jobs) {
    RecurringSql sql = new RecurringSql(d, jobs);
    out.add("now", "none", sql.now);
    out.add("declared", "the name", sql.declared);
    out.add("insert", "name, schedule, payload, next tick", sql.insert);
    out.add("redeclare", "schedule, payload, next tick, name", sql.redeclare);
    out.add("repayload", "payload, name", sql.repayload);
    out.add("last-run", "a job id", sql.lastRun);
    out.add("unfinished-run", "the name", sql.unfinishedRun);
    out.add(
        "insert-run",
        "name, payload, max attempts, the step's now (due), the step's now (created), tick",
        sql.insertRun);
    out.add("fired", "next tick, last tick, last run, name", sql.fired);
    out.add("moved", "next tick, name", sql.moved);
    out.add("list", "none", sql.list);
    out.add("remove", "the name", sql.remove);
    out.add("run-now", "the name", sql.runNow);
    for (int names = 1; names <= 3; names++) {
      out.add("due-" + names, "the step's now, the " + names + " names", sql.due(names));
      out.add("soonest-" + names, "a time, the " + names + " names", sql.soonest(names));
    }
    if (sql.begin != null) { // a step's transaction, begun by a statement
      out.add("step-begin", "none", sql.begin);
      out.add("step-commit", "none", Jdbc.COMMIT);
      out.add("step-rollback", "none", Jdbc.ROLLBACK);
    }
  }

  /** The schedules table of the job table {@code jobs}. */
  public static String table(Dialect d, String jobs) {
    return new RecurringSql(d, jobs).table;
  }
}

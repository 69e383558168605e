package dev.postbox;

import static org.junit.jupiter.api.Assertions.fail;

import dev.postbox.internal.InternalSqlRendering;
import dev.postbox.internal.KeysPrune;
import dev.postbox.internal.console.ConsoleSqlRendering;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.internal.lane.Lanes;
import dev.postbox.internal.recurring.RecurringSql;
import dev.postbox.internal.recurring.RecurringSqlRendering;
import dev.postbox.internal.sql.Admission;
import dev.postbox.internal.sql.FairOrder;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.LaneSqlRendering;
import dev.postbox.internal.sql.Limits;
import dev.postbox.internal.sql.QueueSql;
import dev.postbox.internal.sql.QueueTable;
import dev.postbox.internal.sql.Sql;
import dev.postbox.testing.RenderedSql;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every statement Postbox sends to each database, rendered from the code with fixed inputs (the
 * default table names, the tables' shapes, a few counts), equals its file under {@code
 * src/test/resources/sql-rendered/<database>/}: a change of SQL shows in review as a diff of those
 * files. {@code -Dpostbox.sql.update=true} writes the files instead (see the README.md there).
 */
class RenderedSqlTest {
  private static final Path ROOT = Path.of("src", "test", "resources", "sql-rendered");
  private static final boolean UPDATE = Boolean.getBoolean("postbox.sql.update");
  private static final String COMMAND =
      "mvn -B -q test -Dtest=RenderedSqlTest -Dpostbox.sql.update=true";
  private static final int BATCH_SIZE = 500; // the dispatcher's default
  private static final List<String> HANDLED = List.of("email", "report"); // the job handlers

  private static final String OUTBOX_ROW = "event_id, topic, msg_key, payload, headers";
  private static final String JOB_ROW = "name, payload, dedupe_key, max_attempts, delay millis";
  private static final String INBOX_ROW = "consumer, event_id";

  @Test
  void everyStatementIsAsItsFileSays() throws IOException {
    RenderedSql out = new RenderedSql();
    for (Database database : Database.values()) {
      render(out, database);
    }
    if (UPDATE) {
      out.write(ROOT);
      return;
    }
    List<String> problems = out.differences(ROOT);
    if (!problems.isEmpty()) {
      fail(
          problems.size()
              + " rendered statements differ from "
              + ROOT
              + " (if the change is meant, run "
              + COMMAND
              + " and commit the files):\n"
              + String.join("\n", problems));
    }
  }

  // ---- what is rendered

  private static void render(RenderedSql out, Database database) {
    Dialect d = Dialects.of(database);
    String db = database.name().toLowerCase(Locale.ROOT); // as the folders of sql/
    Outbox block = Outbox.builder().build();
    Outbox skip = Outbox.builder().onParked(OrderedParking.SKIP).build();
    Outbox unordered = Outbox.builder().orderedByKey(false).build();
    Jobs jobs = Jobs.builder().build();
    QueueTable<JobContext> claimed = JobNames.claimedBy(jobs.queueTable(), HANDLED);
    Inbox inbox = Inbox.builder().build();

    lane(out.in(db + "/outbox-ordered-block"), d, block.queueTable(), block.queueTable(), true);
    lane(out.in(db + "/outbox-ordered-skip"), d, skip.queueTable(), skip.queueTable(), true);
    lane(out.in(db + "/outbox-unordered"), d, unordered.queueTable(), unordered.queueTable(), true);
    lane(out.in(db + "/jobs"), d, claimed, jobs.queueTable(), false);
    jobStatements(out.in(db + "/jobs"), d, jobs.table());
    out.in(db + "/inbox")
        .add("cleanup", "-retention millis, the limit", QueueSql.inboxCleanup(d, inbox.table()));
    RecurringSqlRendering.render(out.in(db + "/recurring"), d, jobs.table());
    ConsoleSqlRendering.render(out.in(db + "/outbox-ordered-block"), d, block.queueTable());
    ConsoleSqlRendering.render(out.in(db + "/jobs"), d, jobs.queueTable());
    ConsoleSqlRendering.inbox(out.in(db + "/inbox"), d, inbox.table());
    if (KeysPrune.hasKeysTable(database)) {
      List<String> prune =
          new KeysPrune(null, d, block.table(), "rendering", () -> false).statements();
      RenderedSql.Folder keys = out.in(db + "/outbox-ordered-block");
      keys.add("keys-prune-scan", "the key to start after, how many keys", prune.get(0));
      keys.add("keys-prune-lock", "3 keys", prune.get(1));
      keys.add("keys-prune-delete", "3 keys", prune.get(2));
    }

    RenderedSql.Folder add = out.in(db + "/add");
    // the ordered outbox's writer also makes the unordered one's plain inserts
    InternalSqlRendering.adds(add, d, "outbox", block.writer, false, true, OUTBOX_ROW, 1, 2, 3);
    InternalSqlRendering.adds(add, d, "jobs", jobs.writer, false, true, JOB_ROW, 1, 2, 3);
    InternalSqlRendering.adds(add, d, "inbox", inbox.writer, false, false, INBOX_ROW, 1);
    if (database == Database.POSTGRESQL) { // elsewhere an add that notifies is the same INSERT
      Outbox notifying = Outbox.builder().notifyDispatchers(true).build();
      Jobs notifyingJobs = Jobs.builder().notifyDispatchers(true).build();
      InternalSqlRendering.adds(
          add, d, "outbox", notifying.writer, true, true, OUTBOX_ROW, 1, 2, 3);
      InternalSqlRendering.adds(add, d, "jobs", notifyingJobs.writer, true, true, JOB_ROW, 1, 2, 3);
    }

    dispatcher(out.in(db + "/dispatcher"), d, block, claimed, jobs, inbox);
  }

  private static void lane(
      RenderedSql.Folder out, Dialect d, QueueTable<?> lane, QueueTable<?> admin, boolean outbox) {
    LaneSqlRendering.render(out, d, lane, admin, outbox, BATCH_SIZE);
  }

  /**
   * A job's id by dedupe key, cancelling, the counts per name, the look for unhandled names,
   * pausing and resuming names.
   */
  private static void jobStatements(RenderedSql.Folder out, Dialect d, String table) {
    JobStatements statements = new JobStatements(table);
    out.add("id-by-dedupe-key", "the key, the key", statements.byKey);
    out.add("cancel", "the id", statements.cancelById);
    out.add("cancel-by-dedupe-key", "the key, the key", statements.cancelByKey);
    out.add("counts-by-name", "none", JobNames.countsByName(d, table));
    out.add("groups", "how many groups", Home.text(Sql.JOB_GROUPS, d).replace("{table}", table));
    out.add(
        "overdue-unhandled",
        "the wait (negative millis), the wait",
        JobNames.overdueUnhandled(d, table, HANDLED));
    Admission admission =
        new Admission(
            JobNames.claimedBy(JobRows.queueTable(table, Limits.NONE), HANDLED), d, BATCH_SIZE);
    String[] params = {
      "none",
      "none",
      "none",
      "none",
      "none",
      "none",
      "none",
      "-1000, 3 ids",
      "3 ids",
      "none",
      "the shift"
    };
    int i = 0;
    for (var statement : admission.statements().entrySet()) {
      out.add(statement.getKey(), params[i++], statement.getValue().replace("{ids}", "?, ?, ?"));
    }
    var fair = new FairOrder(table).statements();
    out.add("fair-order-tail", "the group, the name", fair.get("fair-order-tail"));
    out.add("fair-order-tail-ungrouped", "the name", fair.get("fair-order-tail-ungrouped"));
    String flow = JobFlow.table(table);
    out.add("pause", "the name", JobFlow.sql(Sql.JOB_PAUSE, d, flow));
    out.add("resume", "the name", JobFlow.sql(Sql.JOB_RESUME, d, flow));
    out.add("paused", "none", JobFlow.sql(Sql.JOBS_PAUSED, d, flow));
    if (d.database() == Database.POSTGRESQL) { // a resume on a table that notifies
      out.add(
          "resume-notify", "none", JobFlow.sql(Sql.NOTIFY, d, flow).replace("{channel}", table));
    }
  }

  /** A dispatcher's checks at start, its LISTEN, and its entry in the registration table. */
  private static void dispatcher(
      RenderedSql.Folder out,
      Dialect d,
      Outbox outbox,
      QueueTable<JobContext> jobLane,
      Jobs jobs,
      Inbox inbox) {
    String registration = OrderingRegistration.table(outbox.table());
    Map<String, String> checks = new LinkedHashMap<>();
    checks.put("outbox", check(outbox.table(), Lanes.checkedColumns(outbox.queueTable())));
    if (d.database() == Database.MYSQL || d.database() == Database.H2) {
      checks.put("outbox-keys", InternalSqlRendering.keysTableCheck(outbox.table()));
    }
    checks.put("jobs", check(jobs.table(), Lanes.checkedColumns(jobLane)));
    checks.put("flow", check(JobFlow.table(jobs.table()), JobFlow.COLUMNS));
    checks.put(
        "schedules",
        check(RecurringSqlRendering.table(d, jobs.table()), RecurringSql.CHECKED_COLUMNS));
    checks.put("flow", check(JobFlow.table(jobs.table()), JobFlow.COLUMNS));
    checks.put("registration", check(registration, OrderingRegistration.COLUMNS));
    checks.put("inbox", check(inbox.table(), InboxRows.ALL));
    checks.forEach((table, sql) -> out.add("check-" + table, "none", sql));
    if (d.database() == Database.POSTGRESQL) {
      out.add("listen-outbox", "none", InternalSqlRendering.listen(outbox.table()));
      out.add("listen-jobs", "none", InternalSqlRendering.listen(jobs.table()));
      out.add("unlisten", "none", InternalSqlRendering.unlisten());
    }
    out.add(
        "registration-forget",
        "instance id, -2 leases in millis",
        OrderingRegistration.sql(Sql.REGISTRATION_FORGET, d, registration));
    out.add(
        "registration-live",
        "-lease millis",
        OrderingRegistration.sql(Sql.REGISTRATION_LIVE, d, registration));
    out.add(
        "registration-insert",
        "instance id, settings",
        OrderingRegistration.sql(Sql.REGISTRATION_INSERT, d, registration));
    out.add(
        "registration-seen",
        "instance id",
        OrderingRegistration.sql(Sql.REGISTRATION_SEEN, d, registration));
    out.add(
        "registration-delete",
        "instance id",
        OrderingRegistration.sql(Sql.REGISTRATION_DELETE, d, registration));
  }

  private static String check(String table, String columns) {
    return InternalSqlRendering.columnsCheck(table, columns);
  }
}

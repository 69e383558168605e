package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.recurring.RecurringJobs;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The options of {@link Dispatcher.Builder} that say what a dispatcher runs (an outbox, jobs,
 * recurring jobs, an inbox), and its {@code build()}; how it runs them is set through {@link
 * DispatcherTuning}. They and their Javadoc are the public reference of these settings. Only {@link
 * Dispatcher.Builder} extends it.
 */
abstract sealed class DispatcherBuilder extends DispatcherTuning permits Dispatcher.Builder {
  private final DataSource dataSource;
  private Outbox outbox;
  private Transport transport;
  private Jobs jobs;
  private Inbox inbox;
  private Map<String, JobHandler> handlers = Map.of();
  private final Map<String, RecurringJobs.Declared> recurring = new LinkedHashMap<>();

  DispatcherBuilder(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Delivers {@code outbox}'s messages to {@code transport}: one {@link Transport#send} per
   * message, or each claim's rows in one {@link BatchTransport#sendBatch} if it is a {@link
   * BatchTransport}.
   *
   * <p>A dispatcher delivers one outbox: a second call is refused (build a dispatcher per outbox
   * table).
   *
   * @param outbox the outbox whose table is dispatched
   * @param transport where its messages are sent
   * @return this builder
   * @throws InvalidValueException if an argument is null, or an outbox was already set
   */
  public Dispatcher.Builder outbox(Outbox outbox, Transport transport) {
    onlyOnce("outbox", this.outbox, "one outbox: build a dispatcher per outbox table");
    Require.notNull("outbox", outbox);
    this.transport = Require.notNull("transport", transport);
    this.outbox = outbox;
    return self();
  }

  /**
   * Runs {@code jobs} with {@code handlers}, one per job name. The dispatcher claims only jobs of
   * these names; jobs of other names wait for a dispatcher that has their handler (and are reported
   * through {@link Listener#jobsWithoutHandler} once due for longer than a lease). A dispatcher
   * runs one job queue: pass every handler to one call.
   *
   * @param jobs the job queue whose table is dispatched
   * @param handlers the handlers, at most one per job name
   * @return this builder
   * @throws InvalidValueException if an argument or a handler is null, there is no handler, a
   *     handler's name breaks the job name rules, two handlers have the same name, {@code jobs}
   *     limits a name none of the handlers has (a misspelt limit would limit nothing), or a job
   *     queue was already set
   */
  public Dispatcher.Builder jobs(Jobs jobs, JobHandler... handlers) {
    onlyOnce(
        "jobs",
        this.jobs,
        "one job queue: pass every handler to one jobs(...) call, or build a dispatcher per"
            + " job table");
    Require.notNull("jobs", jobs);
    Map<String, JobHandler> byName = new LinkedHashMap<>();
    for (JobHandler handler : Require.notNull("handlers", handlers)) {
      Require.notNull("handler", handler);
      String name = Rules.name("handler name", handler.name());
      if (byName.putIfAbsent(name, handler) != null) {
        throw new InvalidValueException("handlers", "has two handlers for job name '" + name + "'");
      }
    }
    if (byName.isEmpty()) {
      throw new InvalidValueException(
          "handlers",
          "is empty: a dispatcher claims only the job names it has a handler for, so it would"
              + " run no job");
    }
    for (String limited : jobs.limits().perName().keySet()) {
      if (!byName.containsKey(limited)) {
        throw new InvalidValueException(
            "jobs",
            "limits job name '"
                + limited
                + "', which none of the handlers has: a dispatcher enforces the limits of the"
                + " names it runs; check the name, or build this dispatcher's Jobs without it");
      }
    }
    this.jobs = jobs;
    this.handlers = Map.copyOf(byName);
    return self();
  }

  /**
   * Runs the job {@code name} with {@code payload} on {@code schedule}: once per tick across all
   * dispatchers that declare it, as an ordinary durable job of that name (its handler is the one
   * given to {@code jobs(…)}; same retries, parking, listener and stats), with the tick in its
   * {@link JobContext#tick()}, judged by the database clock. Overlapping and missed ticks, and
   * schedules changed between starts: docs/jobs.md.
   *
   * @param schedule when the job runs
   * @param name the job name of its runs; its handler must be given to {@code jobs(…)}
   * @param payload the payload of each run
   * @return this builder
   * @throws InvalidValueException if an argument is null or breaks the job name rules, or the name
   *     was already given a schedule
   */
  public Dispatcher.Builder recurring(Schedule schedule, String name, String payload) {
    Require.notNull("schedule", schedule);
    Rules.name("name", name);
    Require.notNull("payload", payload);
    if (recurring.putIfAbsent(name, new RecurringJobs.Declared(schedule.rule(), name, payload))
        != null) {
      throw new InvalidValueException("recurring", "has two schedules for job name '" + name + "'");
    }
    return self();
  }

  /**
   * Deletes {@code inbox} rows older than its retention, every {@code cleanupInterval}. A
   * dispatcher cleans up one inbox: a second call is refused.
   *
   * @param inbox the inbox whose table is cleaned up
   * @return this builder
   * @throws InvalidValueException if {@code inbox} is null, or an inbox was already set
   */
  public Dispatcher.Builder inbox(Inbox inbox) {
    onlyOnce("inbox", this.inbox, "one inbox: build a dispatcher per inbox table");
    this.inbox = Require.notNull("inbox", inbox);
    return self();
  }

  /**
   * A dispatcher with these options, copied: changing this builder later changes nothing built.
   * Each dispatcher built without an {@code instanceId} gets its own. It does nothing until {@link
   * Dispatcher#start()}.
   *
   * @return the dispatcher, not started
   * @throws InvalidValueException if none of outbox, jobs and inbox is set, a recurring job has no
   *     handler or a payload the job queue refuses (over its limit, or with a NUL character), or
   *     the schedules table's name (the job table's plus {@code _schedules}) would be longer than
   *     63 characters
   */
  public Dispatcher build() {
    if (outbox == null && jobs == null && inbox == null) {
      throw new InvalidValueException(
          "outbox", "jobs or inbox must be set: give the dispatcher something to do");
    }
    // a job table's name leaves room for its _schedules table: Jobs.Builder.table checks it
    for (RecurringJobs.Declared d : recurring.values()) {
      if (jobs == null || !handlers.containsKey(d.name())) {
        throw new InvalidValueException(
            "recurring",
            "job '" + d.name() + "' has no handler: pass one with that name to jobs(...)");
      }
      Rules.payload(d.payload(), jobs.payloadLimit());
    }
    return new Dispatcher(
        new DispatcherSettings(
            dataSource,
            outbox,
            transport,
            jobs,
            inbox,
            handlers,
            Map.copyOf(recurring),
            batchSize,
            concurrency,
            claimsInFlight,
            pollInterval,
            lease,
            sendTimeout,
            maxAttempts,
            backoff,
            instanceId != null ? instanceId : defaultInstanceId(),
            shutdownTimeout,
            cleanupInterval,
            vacuumEvery,
            listener,
            database));
  }

  // a second table of a kind would silently replace the first, whose rows would then wait
  // forever (or, for jobs, be parked for want of a handler)
  private static void onlyOnce(String option, Object current, String why) {
    if (current != null) {
      throw new InvalidValueException(option, "was already set: a dispatcher runs " + why);
    }
  }

  private static String defaultInstanceId() {
    byte[] random = new byte[3];
    ThreadLocalRandom.current().nextBytes(random);
    return "postbox-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
  }
}

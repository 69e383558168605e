package dev.postbox.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Backoff;
import dev.postbox.Dispatcher;
import dev.postbox.Job;
import dev.postbox.JobContext;
import dev.postbox.JobHandler;
import dev.postbox.Jobs;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.PostboxException;
import dev.postbox.Transport;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs the outbox and the job queue through success, retry, parking and rejection with TRACE
 * logging, every payload and header value carrying {@link #CANARY}; {@link LogCanaryTest} reads
 * everything this JVM printed and fails if the canary appears. Event ids and topics are meant to
 * appear, so they are plain.
 */
public final class LogCanaryProcess {
  static final String CANARY = "CANARY-7f3a9c-SECRET";
  static final String TOPIC = "topic.visible";
  static final String FORGED_LINE = "FORGED-LOG-LINE";

  private LogCanaryProcess() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (String arg : argv) {
      int eq = arg.indexOf('=');
      args.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args.get("url"));
    config.setUsername(args.get("user"));
    config.setPassword(args.get("password"));
    config.setMaximumPoolSize(4);
    try (HikariDataSource ds = new HikariDataSource(config)) {
      run(ds);
    }
    System.out.println("CANARY-RUN-DONE");
  }

  private static void run(HikariDataSource ds) throws Exception {
    Outbox outbox =
        Outbox.builder()
            .payloadLimit(4096)
            .headers(() -> Map.of("x-tenant", "tenant-" + CANARY))
            .build();
    Jobs jobs = Jobs.builder().payloadLimit(4096).maxAttempts(2).build();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < 6; i++) {
        outbox.add(
            c,
            Message.of(TOPIC, "{\"secret\":\"" + CANARY + "\",\"n\":" + i + "}")
                .eventId("evt-visible-" + i)
                .key("key-visible-" + i)
                .header("authorization", "Bearer " + CANARY));
      }
      outbox.add(c, Message.of(TOPIC, "{\"poison\":\"" + CANARY + "\"}").eventId("evt-poison"));
      jobs.enqueue(c, Job.of("job.visible", "{\"secret\":\"" + CANARY + "\"}"));
      jobs.enqueue(c, Job.of("job.failing", "{\"secret\":\"" + CANARY + "\"}"));
      jobs.enqueue(c, Job.of("job.unknown", "{\"secret\":\"" + CANARY + "\"}"));
      c.commit();

      // rejected input: the messages must not echo the values
      reject(() -> outbox.add(c, Message.of(TOPIC, CANARY.repeat(400)).eventId("evt-too-big")));
      reject(() -> Message.of(TOPIC, "{}").header("authorization", CANARY + "\n"));
      reject(() -> Message.of(TOPIC, "{}").header("authorization", CANARY.repeat(500)));
      reject(() -> Message.of(TOPIC, "{}").headers(Map.of("x", CANARY + "\u0000")));
      reject(() -> jobs.enqueue(c, Job.of("job.visible", CANARY.repeat(400))));
      reject(
          () ->
              outbox.addAll(
                  c,
                  List.of(
                      Message.of(TOPIC, CANARY).eventId("evt-batch-ok"),
                      Message.of(TOPIC, CANARY.repeat(400)).eventId("evt-batch-bad"))));
      // a database error on add (a NUL is not text on PostgreSQL)
      try {
        outbox.add(c, Message.of(TOPIC, CANARY + "\u0000").eventId("evt-nul"));
        System.out.println("ACCEPTED evt-nul");
      } catch (PostboxException e) {
        System.out.println("REJECTED evt-nul: " + describe(e));
      }
      c.rollback();
      // what the API prints of messages and envelopes
      System.out.println(
          "TOSTRING "
              + Message.of(TOPIC, CANARY).header("h", CANARY).eventId("evt-visible-x")
              + " "
              + Job.of("job.visible", CANARY).dedupeKey("dedupe-visible"));
    }

    Map<String, Integer> attempts = new ConcurrentHashMap<>();
    Transport transport =
        envelope -> {
          System.out.println("TOSTRING " + envelope);
          int attempt = attempts.merge(envelope.eventId(), 1, Integer::sum);
          if (envelope.eventId().equals("evt-poison") || attempt == 1) {
            throw new IllegalStateException("broker refused " + envelope.eventId());
          }
        };
    JobHandler visible = handler("job.visible", false);
    JobHandler failing = handler("job.failing", true);
    Dispatcher dispatcher =
        Dispatcher.builder(ds)
            .instanceId("canary-dispatcher")
            .outbox(outbox, transport)
            .jobs(jobs, visible, failing)
            .pollInterval(Duration.ofMillis(20))
            .backoff(Backoff.fixed(Duration.ofMillis(20)))
            .maxAttempts(3)
            .build();
    dispatcher.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection c = ds.getConnection()) {
        // job.unknown has no handler here: it waits for a dispatcher that has one
        if (outbox.countPending(c) == 0 && jobs.countPending(c) == 1) {
          break;
        }
      }
      Thread.sleep(50);
    }
    try (Connection c = ds.getConnection()) {
      System.out.println(
          "FINAL outbox_pending="
              + outbox.countPending(c)
              + " outbox_parked="
              + outbox.parked(c, 10).size()
              + " jobs_pending="
              + jobs.countPending(c)
              + " jobs_parked="
              + jobs.parked(c, 10).size()
              + " stats="
              + outbox.stats(c)
              + " parked="
              + outbox.parked(c, 10));
    }
    dispatcher.close();
  }

  private static JobHandler handler(String name, boolean fails) {
    return new JobHandler() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void execute(JobContext job) {
        if (fails) {
          // the retried attempt's message is logged (DEBUG), on one line: LogCanaryTest looks
          throw new IllegalStateException(
              "job refused on attempt " + job.attempt() + "\n" + FORGED_LINE);
        }
      }
    };
  }

  private interface Action {
    void run() throws Exception;
  }

  private static void reject(Action action) {
    try {
      action.run();
      System.out.println("NOT REJECTED");
    } catch (Exception e) {
      System.out.println("REJECTED " + describe(e));
    }
  }

  /** The exception and its causes as a user's log line would show them, stack included. */
  private static String describe(Throwable e) {
    java.io.StringWriter out = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }
}

package dev.postbox.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Backoff;
import dev.postbox.Database;
import dev.postbox.Delivery;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.JobHandler;
import dev.postbox.Jobs;
import dev.postbox.Listener;
import dev.postbox.OrderedParking;
import dev.postbox.Outbox;
import dev.postbox.Schedule;
import dev.postbox.Transport;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.dialect.Dialects;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A dispatcher as a user runs it, in its own JVM so that {@code kill -9} is real: one or more
 * {@link Dispatcher}s on a HikariCP pool, whose transport (outbox) or job handler (jobs) records
 * every delivery attempt in {@code rel_deliveries} in its own auto-commit transaction, without
 * dedupe; with {@code --mode=limits}, the limited jobs of {@link LimitLedger}, each run recorded in
 * {@code rel_runs}.
 *
 * <p>Failure injection is driven by the payload ({@code "poison":true} always fails, {@code
 * "sleep":N} works N ms; a job with {@code "retrySleep":N} works N ms from its second attempt on)
 * and by a file ({@code --outage-file}: while it exists the transport fails everything). Prints
 * {@code CLOCK wall=<System.currentTimeMillis()>} at start, {@code READY} once started, and a
 * {@code STATUS} line with counters, thread and pool figures every {@code --status-ms}. SIGTERM
 * closes the dispatchers gracefully.
 */
public final class DispatcherProcess {
  /** The job name of the per-second recurring job. */
  static final String TICK_JOB = "rel-tick";

  private static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");
  private static final Pattern SLEEP = Pattern.compile("\"sleep\":(\\d+)");
  private static final Pattern RETRY_SLEEP = Pattern.compile("\"retrySleep\":(\\d+)");

  private final Map<String, String> args;
  private final HikariDataSource ds;
  private final Dialect dialect;
  private final Path outageFile;
  private final long workMillis;
  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong parked = new AtomicLong();
  private final AtomicLong leaseLost = new AtomicLong();
  private final AtomicLong outages = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong recordErrors = new AtomicLong();
  private final AtomicLong maxStallMillis = new AtomicLong();
  private final List<Dispatcher> dispatchers = new ArrayList<>();

  private DispatcherProcess(Map<String, String> args) {
    this.args = args;
    Database database =
        switch (args.get("db")) {
          case "postgresql" -> Database.POSTGRESQL;
          case "mariadb" -> Database.MYSQL;
          case "h2" -> Database.H2;
          case "sqlite" -> Database.SQLITE;
          default -> throw new IllegalArgumentException(args.get("db"));
        };
    this.dialect = Dialects.of(database);
    String out = args.getOrDefault("outage-file", "");
    this.outageFile = out.isEmpty() ? null : Path.of(out);
    this.workMillis = Long.parseLong(args.getOrDefault("work-ms", "0"));
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args.get("url"));
    config.setUsername(args.get("user"));
    config.setPassword(args.get("password"));
    config.setPoolName("rel-" + args.get("instance"));
    config.setMaximumPoolSize(Integer.parseInt(args.getOrDefault("pool", "6")));
    config.setMinimumIdle(1);
    config.setConnectionTimeout(5_000);
    config.setValidationTimeout(2_000);
    config.setInitializationFailTimeout(-1);
    if (database == Database.POSTGRESQL) {
      config.addDataSourceProperty("ApplicationName", "rel-" + args.get("instance"));
    }
    this.ds = new HikariDataSource(config);
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (String arg : argv) {
      int eq = arg.indexOf('=');
      args.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    System.out.println("CLOCK wall=" + System.currentTimeMillis());
    System.out.flush();
    DispatcherProcess process = new DispatcherProcess(args);
    Runtime.getRuntime().addShutdownHook(new Thread(process::close, "rel-shutdown"));
    // the test JVM holds our stdin: if it dies, stdin ends and so do we (no orphans)
    Thread.ofPlatform()
        .daemon()
        .name("rel-parent-watch")
        .start(
            () -> {
              try {
                while (System.in.read() != -1) {
                  // nothing is ever written
                }
              } catch (java.io.IOException ignored) {
                // treated as the end
              }
              System.exit(3);
            });
    process.start();
    process.watchStalls();
    System.out.println("READY pid=" + ProcessHandle.current().pid());
    System.out.flush();
    long every = Long.parseLong(args.getOrDefault("status-ms", "250"));
    while (true) {
      process.printStatus();
      Thread.sleep(every);
    }
  }

  private void start() {
    String mode = args.getOrDefault("mode", "outbox");
    int count = Integer.parseInt(args.getOrDefault("dispatchers", "1"));
    String base = args.get("instance");
    for (int i = 0; i < count; i++) {
      String instance = count == 1 ? base : base + "." + i;
      Dispatcher.Builder b =
          Dispatcher.builder(ds)
              .instanceId(instance)
              .batchSize(Integer.parseInt(args.getOrDefault("batch", "50")))
              .concurrency(Integer.parseInt(args.getOrDefault("concurrency", "8")))
              .pollInterval(Duration.ofMillis(Long.parseLong(args.getOrDefault("poll-ms", "100"))))
              .lease(Duration.ofMillis(Long.parseLong(args.getOrDefault("lease-ms", "30000"))))
              .maxAttempts(Integer.parseInt(args.getOrDefault("max-attempts", "10")))
              .backoff(backoff(args.getOrDefault("backoff", "fixed:200")))
              .shutdownTimeout(Duration.ofSeconds(10))
              .listener(listener());
      if (mode.equals("limits")) {
        // the limit scenario's jobs, whose runs are recorded in rel_runs (LimitLedger)
        b.jobs(LimitLedger.jobs(), LimitLedger.handlers(ds, dialect, instance, workMillis));
      } else if (!mode.equals("jobs")) {
        Outbox outbox =
            Outbox.builder()
                .orderedByKey(Boolean.parseBoolean(args.getOrDefault("ordered", "true")))
                .onParked(OrderedParking.valueOf(args.getOrDefault("on-parked", "BLOCK_KEY")))
                .build();
        b.outbox(outbox, transport(instance));
      }
      if (mode.equals("jobs") || mode.equals("both")) {
        Jobs jobs =
            Jobs.builder()
                .maxAttempts(Integer.parseInt(args.getOrDefault("max-attempts", "10")))
                .build();
        if (Boolean.parseBoolean(args.getOrDefault("recurring", "false"))) {
          b.jobs(jobs, handler(instance), tickHandler(instance))
              .recurring(Schedule.cron("* * * * * *"), TICK_JOB, "{}");
        } else {
          b.jobs(jobs, handler(instance));
        }
      }
      Dispatcher d = b.build();
      d.start();
      dispatchers.add(d);
    }
  }

  /**
   * Measures how late a 50 ms sleep of a platform thread wakes up: a JVM or machine stall longer
   * than a lease's renewal slack explains a lease that expired while held.
   */
  private void watchStalls() {
    Thread.ofPlatform()
        .daemon()
        .name("rel-stall-watch")
        .start(
            () -> {
              while (true) {
                long before = System.nanoTime();
                try {
                  Thread.sleep(50);
                } catch (InterruptedException e) {
                  return;
                }
                long late = (System.nanoTime() - before) / 1_000_000 - 50;
                maxStallMillis.accumulateAndGet(late, Math::max);
              }
            });
  }

  private void close() {
    for (Dispatcher d : dispatchers) {
      d.close();
    }
    printStatus();
    ds.close();
    System.out.println("STOPPED");
    System.out.flush();
  }

  private static Backoff backoff(String spec) {
    String[] p = spec.split(":");
    return switch (p[0]) {
      case "fixed" -> Backoff.fixed(Duration.ofMillis(Long.parseLong(p[1])));
      case "exp" ->
          Backoff.exponential(
              Duration.ofMillis(Long.parseLong(p[1])), Duration.ofMillis(Long.parseLong(p[2])));
      default -> throw new IllegalArgumentException(spec);
    };
  }

  private Transport transport(String instance) {
    return envelope -> attempt(instance, envelope.eventId(), envelope.attempt(), envelope);
  }

  private JobHandler handler(String instance) {
    return new JobHandler() {
      @Override
      public String name() {
        return "rel";
      }

      @Override
      public void execute(dev.postbox.JobContext job) throws Exception {
        Matcher m = ID.matcher(job.payload());
        if (!m.find()) {
          throw new IllegalStateException("rel: job payload without id");
        }
        // the attempt the claim counted, not the row read later: a process frozen before that
        // read would see the next owner's attempt and work as long as a retry does
        attempt(instance, m.group(1), job.attempt(), job.payload());
      }
    };
  }

  /**
   * The handler of the per-second recurring job ({@code --recurring=true}): records each run as the
   * event {@code tick-<epoch second of its tick>-<job id>}, so the ledger counts runs per tick.
   */
  private JobHandler tickHandler(String instance) {
    return JobHandler.of(
        TICK_JOB,
        job ->
            attempt(
                instance,
                "tick-" + job.tick().getEpochSecond() + "-" + job.id(),
                job.attempt(),
                job.payload()));
  }

  /**
   * One delivery attempt: work, decide the outcome, record it. {@code attempt} is the claim's count
   * (0 where unknown: then a retry is recognised by the row's count). {@code item} is the envelope
   * or the job payload.
   */
  private void attempt(String instance, String eventId, int attempt, Object item) throws Exception {
    String payload = item instanceof Envelope e ? e.payload() : (String) item;
    Matcher sleep = SLEEP.matcher(payload);
    long work = sleep.find() ? Long.parseLong(sleep.group(1)) : workMillis;
    Matcher retrySleep = RETRY_SLEEP.matcher(payload);
    if (retrySleep.find() && (attempt > 0 ? attempt : jobAttempts(eventId)) > 1) {
      work = Long.parseLong(retrySleep.group(1));
    }
    if (work > 0) {
      long jitter = workMillis > 0 && work == workMillis ? workMillis / 2 : 0;
      Thread.sleep(work + (jitter > 0 ? ThreadLocalRandom.current().nextLong(jitter + 1) : 0));
    }
    String failure = null;
    if (outageFile != null && Files.exists(outageFile)) {
      failure = "rel: transport down";
    } else if (payload.contains("\"poison\":true")) {
      failure = "rel: poison";
    }
    try {
      record(instance, eventId, attempt, item instanceof Envelope, failure == null);
    } catch (SQLException e) {
      recordErrors.incrementAndGet();
      throw e;
    }
    if (failure != null) {
      throw new IllegalStateException(failure);
    }
  }

  /** The attempts of the job whose dedupe key is {@code eventId}, as stored (0 if none). */
  private int jobAttempts(String eventId) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT attempts FROM postbox_jobs WHERE COALESCE(running_key, dedupe_key) = ?")) {
      ps.setString(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }

  private void record(String instance, String eventId, int attempt, boolean outbox, boolean ok)
      throws SQLException {
    // a job being run holds its key (the event id here) in running_key, where the claim moved it
    String lookup =
        "SELECT leased_by, attempts, claims, available_at, "
            + dialect.now()
            + " AS now_value FROM "
            + (outbox
                ? "postbox_outbox WHERE event_id = ?"
                // a started job keeps its dedupe key in running_key
                : "postbox_jobs WHERE COALESCE(running_key, dedupe_key) = ?");
    try (Connection c = ds.getConnection()) {
      boolean leaseOk = false;
      int rowAttempt = attempt;
      int claims = 0;
      String owner = null;
      long leaseLeftMillis = 0;
      try (PreparedStatement ps = c.prepareStatement(lookup)) {
        ps.setString(1, eventId);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            owner = rs.getString(1);
            int stored = rs.getInt(2);
            claims = rs.getInt(3);
            if (!outbox) {
              rowAttempt = stored;
            }
            leaseLeftMillis =
                java.time.Duration.between(
                        dialect.readInstant(rs, "now_value"),
                        dialect.readInstant(rs, "available_at"))
                    .toMillis();
            // a row of a run behind its key's head is charged its attempt only with its outcome
            boolean thisAttempt = stored == rowAttempt || (outbox && stored == rowAttempt - 1);
            leaseOk = instance.equals(owner) && leaseLeftMillis > 0 && thisAttempt;
          }
        }
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO rel_deliveries (event_id, instance_id, attempt, claims, ok, lease_ok,"
                  + " lease_owner, lease_left_ms, delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                  + dialect.now()
                  + ")")) {
        ps.setString(1, eventId);
        ps.setString(2, instance);
        ps.setInt(3, rowAttempt);
        ps.setInt(4, claims);
        ps.setInt(5, ok ? 1 : 0);
        ps.setInt(6, leaseOk ? 1 : 0);
        ps.setString(7, owner);
        ps.setLong(8, leaseLeftMillis);
        ps.executeUpdate();
      }
    }
  }

  private Listener listener() {
    return new Listener() {
      @Override
      public void claimed(String table, int count) {
        claimed.addAndGet(count);
      }

      @Override
      public void delivered(Delivery delivery, Duration elapsed) {
        delivered.incrementAndGet();
      }

      @Override
      public void failed(Delivery delivery, Throwable error, Duration retryIn) {
        failed.incrementAndGet();
      }

      @Override
      public void parked(Delivery delivery, String reason) {
        parked.incrementAndGet();
      }

      @Override
      public void leaseLost(String table, int count) {
        leaseLost.addAndGet(count);
      }

      @Override
      public void outageStarted(String table) {
        outages.incrementAndGet();
      }

      @Override
      public void retried(String table, String operation, SQLException error) {
        retried.incrementAndGet();
      }
    };
  }

  private void printStatus() {
    var pool = ds.getHikariPoolMXBean();
    System.out.println(
        "STATUS wall="
            + System.currentTimeMillis()
            + " threads="
            + Thread.getAllStackTraces().size()
            + " pool_total="
            + (pool == null ? 0 : pool.getTotalConnections())
            + " pool_active="
            + (pool == null ? 0 : pool.getActiveConnections())
            + " claimed="
            + claimed.get()
            + " delivered="
            + delivered.get()
            + " failed="
            + failed.get()
            + " parked="
            + parked.get()
            + " lease_lost="
            + leaseLost.get()
            + " outages="
            + outages.get()
            + " retried="
            + retried.get()
            + " record_errors="
            + recordErrors.get()
            + " max_stall_ms="
            + maxStallMillis.get());
    System.out.flush();
  }
}

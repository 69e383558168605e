package dev.postbox.rabbitmq;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Inbox;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A consumer in its own JVM, for the crash test: consumes {@code args[0]} as inbox consumer {@code
 * args[1]} with prefetch 1, applying the test's side effect (a row in {@code e2e_effects}); after
 * committing the first event it prints {@code COMMITTED <event id>} and blocks before acking, so
 * the test can kill it exactly between commit and ack. Database settings come from the environment
 * (E2E_JDBC_URL, E2E_JDBC_USER, E2E_JDBC_PASSWORD) so no password shows on a command line.
 */
public final class ConsumerProcess {
  static final String READY = "READY";
  static final String COMMITTED = "COMMITTED ";

  private ConsumerProcess() {}

  /** The test's side effect: one row per application, never deduplicated by the table itself. */
  static RabbitMqConsumer.Handler effects(String appliedBy) {
    return (tx, envelope) -> {
      try (PreparedStatement ps =
          tx.prepareStatement("INSERT INTO e2e_effects (event_id, applied_by) VALUES (?, ?)")) {
        ps.setString(1, envelope.eventId());
        ps.setString(2, appliedBy);
        ps.executeUpdate();
      }
    };
  }

  /**
   * Starts this class's {@code main} in a new JVM with the same java binary and the test classpath,
   * consuming {@code queue} as {@code consumer} on {@code ds}'s database.
   */
  static Running start(String queue, String consumer, HikariDataSource ds) throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(System.getProperty("java.home") + "/bin/java");
    ProcessBuilder pb =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                ConsumerProcess.class.getName(),
                queue,
                consumer)
            .redirectErrorStream(true);
    pb.environment().put("E2E_JDBC_URL", ds.getJdbcUrl());
    pb.environment().put("E2E_JDBC_USER", ds.getUsername());
    pb.environment().put("E2E_JDBC_PASSWORD", ds.getPassword() == null ? "" : ds.getPassword());
    return new Running(pb.start());
  }

  /** The consumer JVM and the lines it printed. */
  static final class Running {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new CopyOnWriteArrayList<>();

    private Running(Process process) {
      this.process = process;
      Thread.ofVirtual()
          .start(
              () -> {
                try (BufferedReader r = process.inputReader(StandardCharsets.UTF_8)) {
                  r.lines().forEach(lines::add);
                } catch (IOException | UncheckedIOException ignored) {
                  // the process was killed
                }
              });
    }

    long pid() {
      return process.pid();
    }

    /** The first line starting with {@code prefix}; fails after 60 s or if the JVM exits. */
    String awaitLine(String prefix) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        String line = lines.poll(100, TimeUnit.MILLISECONDS);
        if (line != null) {
          seen.add(line);
          if (line.startsWith(prefix)) {
            return line;
          }
        } else if (!process.isAlive()) {
          break;
        }
      }
      throw new AssertionError("consumer process never printed " + prefix + "; output: " + seen);
    }

    /** SIGKILL: no shutdown hook, no close, the broker just sees the connection drop. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("killed consumer process did not exit");
      }
    }
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    String queue = args[0];
    String name = args[1];
    try (HikariDataSource ds = new HikariDataSource()) {
      ds.setJdbcUrl(System.getenv("E2E_JDBC_URL"));
      ds.setUsername(System.getenv("E2E_JDBC_USER"));
      ds.setPassword(System.getenv("E2E_JDBC_PASSWORD"));
      ds.setMaximumPoolSize(2);
      CountDownLatch never = new CountDownLatch(1);
      RabbitMqConsumer consumer =
          RabbitMqConsumer.builder(RabbitMq.factory(), ds, Inbox.builder().build())
              .queue(queue)
              .name(name)
              .prefetch(1)
              .handler(effects("process-" + ProcessHandle.current().pid()))
              .beforeAck(
                  envelope -> {
                    out.println(COMMITTED + envelope.eventId());
                    try {
                      never.await(); // killed here: committed, not acked
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  })
              .build()
              .start();
      out.println(READY);
      never.await();
      consumer.close();
    }
  }
}

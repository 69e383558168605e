package dev.postbox.kafka;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Backoff;
import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import dev.postbox.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * A dispatcher with the {@link KafkaTransport} in its own JVM, so that the test can {@code kill -9}
 * it mid-run: {@code args[0]} is the bootstrap servers, {@code args[1]} the instance id. The
 * dispatcher's settings are the tests' ({@link #settings}), the database comes from the environment
 * (E2E_JDBC_URL, E2E_JDBC_USER, E2E_JDBC_PASSWORD), so no password shows on a command line. Prints
 * {@code READY} once started; ends when its stdin closes (the test JVM is gone).
 */
public final class KafkaDispatcherProcess {
  static final String READY = "READY";

  private KafkaDispatcherProcess() {}

  /**
   * The dispatcher settings of the end-to-end tests, in process and in this process alike: claims
   * of 100, 32 sends at once, a 50 ms poll, 200 ms backoff, a 5 s lease (how long a killed
   * dispatcher's rows wait before another dispatcher takes them).
   */
  static Dispatcher.Builder settings(DataSource ds) {
    return Dispatcher.builder(ds)
        .batchSize(100)
        .concurrency(32)
        .pollInterval(Duration.ofMillis(50))
        .backoff(Backoff.fixed(Duration.ofMillis(200)))
        .lease(Duration.ofSeconds(5))
        .shutdownTimeout(Duration.ofSeconds(10));
  }

  /** Starts this class's {@code main} in a new JVM with the test classpath, on {@code db}. */
  static Running start(String bootstrapServers, String instance, TestDatabase db)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElseThrow();
    ProcessBuilder pb =
        new ProcessBuilder(
                java,
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                KafkaDispatcherProcess.class.getName(),
                bootstrapServers,
                instance)
            .redirectErrorStream(true);
    pb.environment().put("E2E_JDBC_URL", db.url());
    pb.environment().put("E2E_JDBC_USER", db.user());
    pb.environment().put("E2E_JDBC_PASSWORD", db.password() == null ? "" : db.password());
    return new Running(pb.start());
  }

  /** The dispatcher JVM and the lines it printed. */
  static final class Running implements AutoCloseable {
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

    /** Waits for READY; fails after 60 s or if the JVM exits. */
    Running awaitReady() throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        String line = lines.poll(100, TimeUnit.MILLISECONDS);
        if (line != null) {
          seen.add(line);
          if (line.equals(READY)) {
            return this;
          }
        } else if (!process.isAlive()) {
          break;
        }
      }
      throw new AssertionError("dispatcher process never got ready; output: " + seen);
    }

    /** kill -9: no shutdown hook, no close; its leased rows wait for their lease to run out. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("killed dispatcher process did not exit");
      }
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  public static void main(String[] args) throws Exception {
    String bootstrapServers = args[0];
    String instance = args[1];
    try (HikariDataSource ds = new HikariDataSource();
        KafkaTransport transport = KafkaTransport.builder(bootstrapServers).build()) {
      ds.setJdbcUrl(System.getenv("E2E_JDBC_URL"));
      ds.setUsername(System.getenv("E2E_JDBC_USER"));
      ds.setPassword(System.getenv("E2E_JDBC_PASSWORD"));
      ds.setMaximumPoolSize(8);
      Dispatcher dispatcher =
          settings(ds).outbox(Outbox.builder().build(), transport).instanceId(instance).build();
      dispatcher.start();
      CountDownLatch parentGone = new CountDownLatch(1);
      // the test JVM holds our stdin: when it ends, so do we (no orphans)
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                try {
                  while (System.in.read() != -1) {
                    // nothing is ever written
                  }
                } catch (IOException ignored) {
                  // treated as the end
                }
                parentGone.countDown();
              });
      System.out.println(READY);
      System.out.flush();
      parentGone.await();
      dispatcher.close();
    }
  }
}

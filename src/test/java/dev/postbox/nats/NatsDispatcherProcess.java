package dev.postbox.nats;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Backoff;
import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * A dispatcher with {@link NatsTransport} in its own JVM, so the test can {@code kill -9} it
 * mid-run: {@code args} are the NATS url, the subject prefix, the partitions, the instance id and
 * the lease in ms. Database settings come from the environment (E2E_JDBC_URL, E2E_JDBC_USER,
 * E2E_JDBC_PASSWORD) so no password shows on a command line. Prints {@code READY} once started;
 * ends when its stdin closes (the test JVM died), so it is never left behind.
 */
public final class NatsDispatcherProcess {
  static final String READY = "READY";

  private NatsDispatcherProcess() {}

  /**
   * The dispatcher settings of the end-to-end tests and the benchmark, in process and in this
   * process alike: claims of 100, 32 sends at once, a 50 ms poll, 200 ms backoff, a 2 s lease (how
   * long a killed dispatcher's rows wait before another dispatcher takes them).
   */
  static Dispatcher.Builder settings(DataSource ds) {
    return Dispatcher.builder(ds)
        .batchSize(100)
        .concurrency(32)
        .pollInterval(Duration.ofMillis(50))
        .backoff(Backoff.fixed(Duration.ofMillis(200)))
        .lease(Duration.ofSeconds(2))
        .shutdownTimeout(Duration.ofSeconds(10));
  }

  /** Starts {@link #main} in a new JVM with the test classpath; its output goes to {@code log}. */
  static Process start(
      HikariDataSource ds, String url, String prefix, int partitions, String instance, Path log)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElseThrow();
    String classPath = System.getProperty("surefire.test.class.path");
    if (classPath == null || classPath.isBlank()) {
      classPath = System.getProperty("java.class.path");
    }
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", classPath));
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add(NatsDispatcherProcess.class.getName());
    command.addAll(List.of(url, prefix, Integer.toString(partitions), instance, "2000"));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    pb.environment().put("E2E_JDBC_URL", ds.getJdbcUrl());
    pb.environment().put("E2E_JDBC_USER", ds.getUsername());
    pb.environment().put("E2E_JDBC_PASSWORD", ds.getPassword() == null ? "" : ds.getPassword());
    return pb.start();
  }

  /** Waits until the child printed READY; fails if it died or took more than 60 s. */
  static void awaitReady(Process child, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(log, StandardCharsets.UTF_8).contains(READY)) {
      if (!child.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("dispatcher process not ready: " + Files.readString(log));
      }
      Thread.sleep(20);
    }
  }

  /** SIGKILL: no shutdown hook, no close; its leased rows wait for their lease to run out. */
  static void kill9(Process child) throws InterruptedException {
    child.destroyForcibly();
    if (!child.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("dispatcher process survived kill -9");
    }
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    // the test JVM holds our stdin: when it dies, stdin ends and so do we (no orphans)
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
              Runtime.getRuntime().halt(3);
            });
    try (HikariDataSource ds = new HikariDataSource();
        Connection nats = Nats.connect(NatsServer.options(args[0], args[3]))) {
      ds.setJdbcUrl(System.getenv("E2E_JDBC_URL"));
      ds.setUsername(System.getenv("E2E_JDBC_USER"));
      ds.setPassword(System.getenv("E2E_JDBC_PASSWORD"));
      ds.setMaximumPoolSize(4);
      NatsTransport transport =
          NatsTransport.create(
              nats,
              NatsTransport.keyPartitioned(args[1], Integer.parseInt(args[2])),
              Duration.ofSeconds(2));
      Dispatcher dispatcher =
          settings(ds)
              .outbox(Outbox.builder().build(), transport)
              .instanceId(args[3])
              .lease(Duration.ofMillis(Long.parseLong(args[4])))
              .build();
      dispatcher.start();
      out.println(READY);
      Thread.sleep(Long.MAX_VALUE); // until killed
    }
  }
}

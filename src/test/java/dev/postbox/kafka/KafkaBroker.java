package dev.postbox.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A single-node Apache Kafka broker in KRaft combined mode (broker and controller in one process,
 * no ZooKeeper), run as a child JVM from the Kafka server jars on the test classpath: free ports, a
 * temporary log directory formatted with a random cluster id, quiet logging to a file in that
 * directory. {@link #stop()} and {@link #start()} restart it on the same ports and data, which is
 * how the tests take the broker away. A broker that does not come up fails the test.
 *
 * <p>The child also runs this class's {@link #main}: it ends the broker when its stdin closes, so a
 * test JVM that dies without running its shutdown hook leaves no broker behind.
 */
final class KafkaBroker implements AutoCloseable {
  /** The largest record batch the broker takes (its {@code message.max.bytes}). */
  static final int MAX_MESSAGE_BYTES = 100_000;

  private static final Duration READY = Duration.ofSeconds(60);

  private final Path dir;
  private final Path config;
  private final int port;
  private final Thread shutdownHook = new Thread(this::destroy, "kafka-broker-stop");
  private Process process;

  private KafkaBroker(Path dir, int port, int controllerPort) throws IOException {
    this.dir = dir;
    this.port = port;
    this.config = dir.resolve("server.properties");
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put(
        "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", dir.resolve("data").toString());
    p.put("num.partitions", "8");
    // one node: every internal topic with one replica, and no waiting for more members
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "8");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("auto.create.topics.enable", "false");
    // the transport's RecordTooLargeException test needs a known limit
    p.put("message.max.bytes", Integer.toString(MAX_MESSAGE_BYTES));
    try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      p.store(out, "Postbox end-to-end tests: one KRaft node");
    }
  }

  /** Formats a new log directory and starts a broker on it; fails if it is not up in 60 s. */
  static KafkaBroker startNew() {
    try {
      Path dir = Files.createTempDirectory("postbox-kafka-");
      KafkaBroker broker = new KafkaBroker(dir, freePort(), freePort());
      Runtime.getRuntime().addShutdownHook(broker.shutdownHook);
      broker.format();
      broker.start();
      return broker;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** An admin client with short timeouts; the caller closes it. */
  Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
  }

  void createTopic(String topic, int partitions) {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("creating topic " + topic + " failed: " + e, e);
    }
  }

  void deleteTopic(String topic) {
    try (Admin admin = admin()) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("deleting topic " + topic + " failed: " + e, e);
    }
  }

  /** Records written to {@code topic} so far: the sum of its partitions' end offsets. */
  long records(String topic) {
    try (Admin admin = admin()) {
      var partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      partitions
          .partitions()
          .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
          .mapToLong(ListOffsetsResultInfo::offset)
          .sum();
    } catch (Exception e) {
      throw new IllegalStateException("reading the end offsets of " + topic + " failed: " + e, e);
    }
  }

  /** Starts the broker (again) on its ports and data and waits until it answers. */
  void start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("the broker is running");
    }
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-Xmx512m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    // Kafka logs through SLF4J (and Log4j API routed to it): the tests' slf4j-simple, to a file
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(KafkaBroker.class.getName());
    command.add(config.toString());
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile()))
              .redirectInput(ProcessBuilder.Redirect.PIPE)
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long deadline = System.nanoTime() + READY.toNanos();
    while (!answers()) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        destroy();
        throw new IllegalStateException(
            "Kafka broker did not start within " + READY + "; log: " + tail());
      }
    }
  }

  /** Stops the broker with SIGTERM (a controlled shutdown); kill -9 if it takes over 30 s. */
  void stop() {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  /** Stops the broker and deletes its data. */
  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException ignored) {
      // the JVM is shutting down: the hook runs anyway
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void destroy() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  private boolean answers() {
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2_000))) {
      return !admin.describeCluster().nodes().get(3, TimeUnit.SECONDS).isEmpty();
    } catch (Exception e) {
      return false;
    }
  }

  private void format() {
    String java = ProcessHandle.current().info().command().orElseThrow();
    try {
      Process format =
          new ProcessBuilder(
                  java,
                  "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                  "-cp",
                  System.getProperty("java.class.path"),
                  "kafka.tools.StorageTool",
                  "format",
                  "--cluster-id",
                  Uuid.randomUuid().toString(),
                  "--config",
                  config.toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(format.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
        throw new IllegalStateException("formatting the Kafka log directory failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private String tail() {
    try {
      String log = Files.readString(dir.resolve("broker.log"), StandardCharsets.UTF_8);
      return log.length() <= 4000 ? log : log.substring(log.length() - 4000);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The broker's main: ends the broker (through its shutdown hook) when stdin closes. */
  public static void main(String[] args) {
    Thread.ofPlatform()
        .daemon()
        .name("parent-watch")
        .start(
            () -> {
              try {
                while (System.in.read() != -1) {
                  // nothing is ever written
                }
              } catch (IOException ignored) {
                // treated as the end
              }
              System.exit(0);
            });
    kafka.Kafka.main(args);
  }
}

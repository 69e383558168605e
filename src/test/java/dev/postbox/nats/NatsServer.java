package dev.postbox.nats;

import dev.postbox.testing.Await;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code nats-server} with JetStream that one test class starts as a child process, on a free
 * port with its own store directory, so a test can stop it and start it again on the same port and
 * store (the machine's shared server at 4222 is never touched). Stopped and its directory deleted
 * on {@link #close()} and, as a last resort, by a shutdown hook. A missing binary fails the test.
 */
final class NatsServer implements AutoCloseable {
  static final Path BINARY =
      Path.of(System.getenv().getOrDefault("POSTBOX_NATS_SERVER", "/usr/sbin/nats-server"));

  /** The outage tests reset connections on purpose: no stack traces for them. */
  static final ErrorListener QUIET = new ErrorListener() {};

  /** How often a client pings the server; two unanswered pings close the connection. */
  static final Duration PING_INTERVAL = Duration.ofSeconds(5);

  private final int port;
  private final Path storeDir;
  private final Thread hook;
  private volatile Process process;

  private NatsServer(int port, Path storeDir) {
    this.port = port;
    this.storeDir = storeDir;
    this.hook = new Thread(this::kill, "nats-server-stop");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Starts a server on a free port; fails (never skips) if the binary is missing. */
  static NatsServer start() {
    if (!Files.isExecutable(BINARY)) {
      throw new AssertionError(
          BINARY
              + " is missing: install the Debian package nats-server (apt-get install -y"
              + " nats-server) or set POSTBOX_NATS_SERVER");
    }
    try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      NatsServer server =
          new NatsServer(free.getLocalPort(), Files.createTempDirectory("postbox-nats-"));
      free.close();
      server.up();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String url() {
    return "nats://127.0.0.1:" + port;
  }

  /**
   * Client options for a publisher: reconnect forever every 250 ms, and no reconnect buffer, so a
   * publish while disconnected fails at once (the dispatcher sees the outage) instead of waiting in
   * the client for a server that may never come back. A ping every 5 s (jnats' default is 2 min)
   * makes the client notice a connection the server dropped or froze within seconds and reconnect.
   */
  static Options options(String url, String name) {
    return options(url, name, 0);
  }

  /** Client options for a consumer or admin: as above, with jnats' default reconnect buffer. */
  static Options consumerOptions(String url, String name) {
    return options(url, name, Options.DEFAULT_RECONNECT_BUF_SIZE);
  }

  private static Options options(String url, String name, long reconnectBuffer) {
    return new Options.Builder()
        .server(url)
        .connectionName(name)
        .connectionTimeout(Duration.ofSeconds(2))
        .maxReconnects(-1)
        .reconnectWait(Duration.ofMillis(250))
        .reconnectBufferSize(reconnectBuffer)
        .pingInterval(PING_INTERVAL)
        .errorListener(QUIET)
        .build();
  }

  Connection connect(String name) {
    return connect(options(url(), name));
  }

  Connection connectConsumer(String name) {
    return connect(consumerOptions(url(), name));
  }

  private static Connection connect(Options options) {
    try {
      return Nats.connect(options);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts the server process (again) on the same port and store; returns once it accepts. */
  void up() {
    try {
      Path log = log();
      Files.createDirectories(log.getParent());
      process =
          new ProcessBuilder(
                  BINARY.toString(),
                  "-a",
                  "127.0.0.1",
                  "-p",
                  Integer.toString(port),
                  "-js",
                  "-sd",
                  storeDir.toString())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + BINARY, e);
    }
    Await.until(Duration.ofSeconds(30), "nats-server accepting on " + port, this::accepting);
  }

  /**
   * Freezes the server (SIGSTOP): its sockets stay open and the kernel still accepts connections,
   * but nothing answers, as with a server that hangs or a network that drops packets silently.
   */
  void freeze() {
    signal("-STOP");
  }

  /** Lets a {@link #freeze() frozen} server run again (SIGCONT). */
  void thaw() {
    signal("-CONT");
  }

  private void signal(String signal) {
    Process p = process;
    if (p == null) {
      throw new IllegalStateException("nats-server is not running");
    }
    try {
      Process kill = new ProcessBuilder("kill", signal, Long.toString(p.pid())).start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill " + signal + " " + p.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops the server (SIGTERM: a clean shutdown) and waits until it is gone. */
  void down() {
    Process p = process;
    if (p == null) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
    process = null;
  }

  /** The server's log, kept under the build directory: nats/nats-server-<port>.log. */
  Path log() {
    try {
      Path classes =
          Path.of(NatsServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return classes.getParent().resolve("nats").resolve("nats-server-" + port + ".log");
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private boolean accepting() {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("nats-server exited: see " + log());
    }
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private void kill() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
    }
  }

  @Override
  public void close() {
    if (process != null) {
      thaw(); // a frozen server would take SIGTERM only once continued
    }
    down();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException ignored) {
      // the JVM is already shutting down: the hook runs anyway
    }
    try (Stream<Path> files = Files.walk(storeDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temp directory left behind is harmless
    }
  }

  // --- stream and consumer setup: done at deploy time in production, never in send ---

  /**
   * A file-backed stream taking {@code subjects}, with a 2-minute duplicate window (JetStream's
   * default) and messages up to {@code maxMessageBytes}.
   */
  static void stream(JetStreamManagement jsm, String name, String subjects, int maxMessageBytes)
      throws IOException, JetStreamApiException {
    jsm.addStream(
        StreamConfiguration.builder()
            .name(name)
            .subjects(subjects)
            .storageType(StorageType.File)
            .duplicateWindow(Duration.ofMinutes(2))
            .maximumMessageSize(maxMessageBytes)
            .build());
  }

  /**
   * A durable pull consumer with explicit acks: unacked messages come back after {@code ackWait};
   * {@code maxAckPending} 1 makes it strictly ordered (the next message only after this one's ack).
   */
  static ConsumerInfo pullConsumer(
      JetStreamManagement jsm,
      String stream,
      String durable,
      String filterSubject,
      Duration ackWait,
      long maxAckPending)
      throws IOException, JetStreamApiException {
    return jsm.addOrUpdateConsumer(
        stream,
        ConsumerConfiguration.builder()
            .durable(durable)
            .filterSubject(filterSubject)
            .deliverPolicy(DeliverPolicy.All)
            .ackPolicy(AckPolicy.Explicit)
            .ackWait(ackWait)
            .maxAckPending(maxAckPending)
            .build());
  }
}

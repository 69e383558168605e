package dev.postbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;
import org.h2.tools.Server;

/**
 * H2 in server mode: a TCP server in this JVM, on a free port, serving a file database in a
 * temporary directory of its own, so that processes of their own can share one H2 database and be
 * killed without taking it with them (embedded, the database dies with the JVM that opened it).
 * Only local connections are accepted; {@link #close()} stops the server and deletes the directory.
 */
final class H2TcpServer implements AutoCloseable {
  private final Server server;
  private final Path directory;

  private H2TcpServer(Server server, Path directory) {
    this.server = server;
    this.directory = directory;
  }

  /** Starts a server whose database is created by its first connection ({@code -ifNotExists}). */
  static H2TcpServer start() {
    Path directory;
    try {
      directory = Files.createTempDirectory("postbox-h2-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      Server server =
          Server.createTcpServer("-tcpPort", "0", "-baseDir", directory.toString(), "-ifNotExists")
              .start();
      return new H2TcpServer(server, directory);
    } catch (SQLException e) {
      delete(directory);
      throw new IllegalStateException("starting an H2 TCP server failed", e);
    }
  }

  /** The URL of the database, for this JVM and any other on this machine. */
  String url() {
    return "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/postbox;LOCK_TIMEOUT=10000";
  }

  @Override
  public void close() {
    server.stop();
    delete(directory);
  }

  private static void delete(Path directory) {
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException ignored) {
      // a temp directory left behind is harmless
    }
  }
}

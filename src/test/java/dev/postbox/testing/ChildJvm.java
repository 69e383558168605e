package dev.postbox.testing;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A test class's {@code main} run in a JVM of its own, so that a test can {@code kill -9} it: the
 * same java binary, the test classpath, quiet logging, and the database login passed in the
 * environment (E2E_JDBC_URL, E2E_JDBC_USER, E2E_JDBC_PASSWORD) so that no password shows on a
 * command line. The child side reads it back with {@link #database(int)} and ends with its parent
 * through {@link #whenParentGone(Runnable)}.
 *
 * @param main the class whose {@code main} the child runs
 * @param jvmOptions options for the child JVM, such as {@code -Xmx256m}
 */
public record ChildJvm(Class<?> main, List<String> jvmOptions) {
  public ChildJvm {
    jvmOptions = List.copyOf(jvmOptions);
  }

  /**
   * Starts the child on {@code db}'s database with {@code args}; it prints to the returned lines.
   */
  public ChildProcess start(TestDatabase db, String... args) throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(System.getProperty("java.home") + "/bin/java");
    String classPath = System.getProperty("surefire.test.class.path");
    if (classPath == null || classPath.isBlank()) {
      classPath = System.getProperty("java.class.path");
    }
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(jvmOptions);
    command.addAll(
        List.of("-cp", classPath, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", main.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("E2E_JDBC_URL", db.url());
    pb.environment().put("E2E_JDBC_USER", db.user());
    pb.environment().put("E2E_JDBC_PASSWORD", db.password() == null ? "" : db.password());
    return new ChildProcess(main.getSimpleName(), pb.start());
  }

  /** In the child: a pool of {@code size} on the database the parent passed in the environment. */
  public static HikariDataSource database(int size) {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(System.getenv("E2E_JDBC_URL"));
    ds.setUsername(System.getenv("E2E_JDBC_USER"));
    ds.setPassword(System.getenv("E2E_JDBC_PASSWORD"));
    ds.setMaximumPoolSize(size);
    return ds;
  }

  /**
   * In the child: runs {@code then} once stdin ends. The parent holds the child's stdin and never
   * writes to it, so it ends when the parent does, and no child is left behind.
   */
  public static void whenParentGone(Runnable then) {
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
              then.run();
            });
  }
}

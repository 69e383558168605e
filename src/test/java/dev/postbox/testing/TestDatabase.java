package dev.postbox.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.api.ErrorCode;
import org.h2.message.DbException;

/**
 * One database the contract suites run on: a fixed-size pool and the shipped schema file. Server
 * URLs come from environment variables (POSTBOX_POSTGRES_URL, POSTBOX_MARIADB_URL,
 * POSTBOX_PGBOUNCER_URL) with the local servers as defaults; {@link #url()}, {@link #user()} and
 * {@link #password()} tell another process where the database is. An unreachable server fails the
 * test: never skipped.
 */
public final class TestDatabase implements AutoCloseable {
  public static final List<String> TABLES =
      List.of("postbox_outbox", "postbox_jobs", "postbox_inbox");

  /** Every table a shipped schema may create: also the keys table of MySQL, MariaDB and H2. */
  private static final List<String> SCHEMA_TABLES =
      List.of(
          "postbox_outbox",
          "postbox_outbox_keys",
          "postbox_outbox_dispatchers",
          "postbox_jobs",
          "postbox_jobs_schedules",
          "postbox_jobs_flow",
          "postbox_inbox");

  private static final int SERVER_POOL = 32;
  private static final int SQLITE_POOL = 8;

  private final Database database;
  private final String url;
  private final String user;
  private final String password;
  private final HikariDataSource dataSource;
  // what else close() ends once the pool is closed: a SQLite file's deletion, an H2 server
  private final Runnable cleanup;
  private boolean transactionPooler;

  private TestDatabase(
      Database database, String url, String user, String password, int poolSize, Runnable cleanup) {
    this.database = database;
    this.url = url;
    this.user = user;
    this.password = password;
    this.dataSource = pool(url, user, password, poolSize, true);
    this.cleanup = cleanup;
  }

  public static TestDatabase postgres() {
    return postgres(SERVER_POOL);
  }

  /** PostgreSQL with a pool of exactly {@code poolSize} connections. */
  public static TestDatabase postgres(int poolSize) {
    return server(
        Database.POSTGRESQL,
        System.getenv("POSTBOX_POSTGRES_URL"),
        "jdbc:postgresql://127.0.0.1:5432/test",
        env("POSTBOX_POSTGRES_USER", "postgres"),
        env("POSTBOX_POSTGRES_PASSWORD", ""),
        poolSize);
  }

  /**
   * PostgreSQL's test database through PgBouncer in transaction pooling mode (.ci/pgbouncer.ini at
   * 127.0.0.1:6432, started by .ci/run): POSTBOX_PGBOUNCER_URL, else the PostgreSQL URL's database
   * on port 6432. {@code prepareThreshold=0}: PgBouncer before 1.21 cannot carry pgjdbc's named
   * server-side prepared statements from one transaction's server connection to the next.
   */
  public static TestDatabase pgbouncer() {
    String url = System.getenv("POSTBOX_PGBOUNCER_URL");
    if (url == null || url.isBlank()) {
      url = throughPgBouncer(env("POSTBOX_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test"));
    }
    try {
      TestDatabase db =
          connect(
              Database.POSTGRESQL,
              url,
              env("POSTBOX_POSTGRES_USER", "postgres"),
              env("POSTBOX_POSTGRES_PASSWORD", ""),
              SERVER_POOL);
      db.transactionPooler = true;
      return db;
    } catch (IllegalStateException unreachable) {
      throw new IllegalStateException(
          "PgBouncer at "
              + url
              + " is unreachable — start it as .ci/run does (pgbouncer -d -u postgres"
              + " .ci/pgbouncer.ini) or set POSTBOX_PGBOUNCER_URL",
          unreachable);
    }
  }

  /** {@code jdbc:postgresql://host:port/db?params} as 127.0.0.1:6432/db?prepareThreshold=0. */
  static String throughPgBouncer(String postgresUrl) {
    String rest = postgresUrl.substring("jdbc:postgresql://".length());
    String database = rest.substring(rest.indexOf('/') + 1);
    int params = database.indexOf('?');
    if (params >= 0) {
      database = database.substring(0, params);
    }
    return "jdbc:postgresql://127.0.0.1:6432/" + database + "?prepareThreshold=0";
  }

  public static TestDatabase mariadb() {
    return mariadb(SERVER_POOL);
  }

  /** MariaDB with a pool of exactly {@code poolSize} connections. */
  public static TestDatabase mariadb(int poolSize) {
    return server(
        Database.MYSQL,
        System.getenv("POSTBOX_MARIADB_URL"),
        "jdbc:mariadb://127.0.0.1:3306/test",
        env("POSTBOX_MARIADB_USER", "root"),
        env("POSTBOX_MARIADB_PASSWORD", ""),
        poolSize);
  }

  public static TestDatabase h2() {
    return new TestDatabase(
        Database.H2,
        "jdbc:h2:mem:postbox-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
        "sa",
        "",
        SERVER_POOL,
        () -> {});
  }

  /**
   * H2 in server mode with a pool of exactly {@code poolSize}: a file database behind an H2 TCP
   * server this JVM runs until {@link #close()}, so that processes of their own share it and a
   * {@code kill -9} of one of them leaves the database running.
   */
  public static TestDatabase h2Server(int poolSize) {
    H2TcpServer server = H2TcpServer.start();
    return new TestDatabase(Database.H2, server.url(), "sa", "", poolSize, server::close);
  }

  public static TestDatabase sqlite() {
    return sqlite(SQLITE_POOL);
  }

  /** A new SQLite file in WAL mode, deleted on close, with a pool of {@code poolSize}. */
  public static TestDatabase sqlite(int poolSize) {
    try {
      Path file = Files.createTempFile("postbox-test-", ".db");
      return new TestDatabase(
          Database.SQLITE,
          "jdbc:sqlite:" + file + "?journal_mode=WAL&busy_timeout=30000",
          "",
          "",
          poolSize,
          () -> deleteSqliteFiles(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The server at {@code url} if given; else the local server at {@code localUrl}; else, outside CI
   * and where a Docker engine runs, a Testcontainers server. In CI an unreachable server fails.
   */
  private static TestDatabase server(
      Database database, String url, String localUrl, String user, String password, int poolSize) {
    if (url != null && !url.isBlank()) {
      return connect(database, url, user, password, poolSize);
    }
    try {
      return connect(database, localUrl, user, password, poolSize);
    } catch (IllegalStateException unreachable) {
      if ("true".equalsIgnoreCase(System.getenv("CI")) || !Containers.dockerAvailable()) {
        throw unreachable;
      }
      Containers.Server server = Containers.start(database);
      return connect(database, server.url(), server.user(), server.password(), poolSize);
    }
  }

  private static TestDatabase connect(
      Database database, String url, String user, String password, int poolSize) {
    TestDatabase db = new TestDatabase(database, url, user, password, poolSize, () -> {});
    try (Connection c = db.dataSource.getConnection()) {
      c.isValid(5);
    } catch (SQLException e) {
      db.close();
      throw new IllegalStateException(
          database
              + " at "
              + url
              + " is unreachable — start the local server (see .ci/run), point the environment"
              + " variable at one, or run Docker for Testcontainers: "
              + e.getMessage(),
          e);
    }
    return db;
  }

  private static HikariDataSource pool(
      String url, String user, String password, int size, boolean autoCommit) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setAutoCommit(autoCommit);
    config.setConnectionTimeout(30_000);
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }

  public Database database() {
    return database;
  }

  /**
   * Whether the connections go through a transaction pooler (PgBouncer), which keeps no session
   * from one transaction to the next: a {@code LISTEN} on them hears nothing.
   */
  public boolean behindTransactionPooler() {
    return transactionPooler;
  }

  /**
   * The error this database's driver raises once the connection to the server broke, for tests that
   * inject one: H2's {@code CONNECTION_BROKEN_1} (SQLState and code 90067, what its server mode
   * raises), SQLState {@code 08006} elsewhere.
   */
  public SQLException brokenConnection(String detail) {
    return database == Database.H2
        ? DbException.get(ErrorCode.CONNECTION_BROKEN_1, detail).getSQLException()
        : new SQLException("connection broken: " + detail, "08006");
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /** The JDBC URL, for a process of its own to connect to the same database. */
  public String url() {
    return url;
  }

  public String user() {
    return user;
  }

  public String password() {
    return password;
  }

  /**
   * Another pool of {@code size} connections on this database, whose connections are handed out in
   * auto-commit mode or not, as an application's pool may be configured; the caller closes it.
   */
  public HikariDataSource pool(int size, boolean autoCommit) {
    return pool(url, user, password, size, autoCommit);
  }

  /** Connections the pool holds open now. */
  public int poolConnections() {
    return dataSource.getHikariPoolMXBean() == null
        ? 0
        : dataSource.getHikariPoolMXBean().getTotalConnections();
  }

  /** The shipped schema file for this database. */
  public Path schemaFile() {
    String dir =
        switch (database) {
          case POSTGRESQL -> "postgresql";
          case MYSQL -> "mysql";
          case H2 -> "h2";
          case SQLITE -> "sqlite";
        };
    return Path.of("sql", dir, "schema.sql");
  }

  /** Drops the Postbox tables and runs the shipped schema file. */
  public void resetSchema() {
    resetSchema(schemaFile());
  }

  /** Drops the Postbox tables and runs {@code schema} instead of the shipped schema file. */
  public void resetSchema(Path schema) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String table : SCHEMA_TABLES) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("dropping the Postbox tables failed", e);
    }
    runScript(schema);
  }

  /** Runs the statements of an SQL script such as a shipped schema or upgrade file. */
  public void runScript(Path script) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : statements(Files.readString(script))) {
        s.execute(statement);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("running " + script + " failed", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The folder of this database's shipped SQL files: {@code sql/<db>}. */
  public Path sqlFolder() {
    return schemaFile().getParent();
  }

  /** Splits a schema file into statements: drops comment lines, splits at ';' ending a line. */
  public static List<String> statements(String script) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : script.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.startsWith("--") || trimmed.isEmpty()) {
        continue;
      }
      int comment = line.indexOf("--");
      String code = comment >= 0 ? line.substring(0, comment) : line;
      current.append(code).append('\n');
      if (code.strip().endsWith(";")) {
        String statement = current.toString().strip();
        statements.add(statement.substring(0, statement.length() - 1));
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      statements.add(current.toString().strip());
    }
    return statements;
  }

  @Override
  public void close() {
    dataSource.close();
    cleanup.run();
  }

  private static void deleteSqliteFiles(Path file) {
    for (String suffix : List.of("", "-wal", "-shm")) {
      try {
        Files.deleteIfExists(Path.of(file + suffix));
      } catch (IOException ignored) {
        // a temp file left behind is harmless
      }
    }
  }
}

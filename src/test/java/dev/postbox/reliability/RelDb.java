package dev.postbox.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * One database of the reliability suite, as the test JVM and the dispatcher processes see it: where
 * it is (the same environment variables as {@code TestDatabase}, passed on to every child), a small
 * pool for the producers and the checker, the shipped schema plus the ledger tables.
 *
 * <p>Ledger tables: {@code rel_ledger} holds one row per committed producer transaction (written in
 * that transaction), {@code rel_deliveries} one row per delivery attempt a dispatcher process made
 * (no dedupe; {@code ok = 0} for an attempt the transport failed).
 */
final class RelDb implements AutoCloseable {
  private static final List<String> POSTBOX_TABLES =
      List.of("postbox_outbox", "postbox_jobs", "postbox_inbox");
  private static final List<String> REL_TABLES = List.of("rel_ledger", "rel_deliveries");

  final Database database;
  final String label;
  final String url;
  final String user;
  final String password;
  final Dialect dialect;
  private final HikariDataSource pool;
  private final Path sqliteFile;

  private RelDb(
      Database database, String label, String url, String user, String password, Path file) {
    this.database = database;
    this.label = label;
    this.url = url;
    this.user = user;
    this.password = password;
    this.dialect = Dialects.of(database);
    this.sqliteFile = file;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setPoolName("rel-test-" + label);
    // small and fixed, so the server's connection count of this JVM is stable (scenario 3 counts)
    config.setMaximumPoolSize(database == Database.SQLITE ? 4 : 8);
    config.setMinimumIdle(database == Database.SQLITE ? 1 : 8);
    config.setConnectionTimeout(30_000);
    config.setInitializationFailTimeout(-1);
    if (database == Database.POSTGRESQL) {
      config.addDataSourceProperty("ApplicationName", "rel-test");
    }
    this.pool = new HikariDataSource(config);
    try (Connection c = pool.getConnection()) {
      c.isValid(5);
    } catch (SQLException e) {
      pool.close();
      throw new IllegalStateException(
          label + " at " + url + " is unreachable — start the local server (see .ci/run)", e);
    }
  }

  static RelDb postgres() {
    return new RelDb(
        Database.POSTGRESQL,
        "postgresql",
        env("POSTBOX_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test"),
        env("POSTBOX_POSTGRES_USER", "postgres"),
        env("POSTBOX_POSTGRES_PASSWORD", ""),
        null);
  }

  static RelDb mariadb() {
    return new RelDb(
        Database.MYSQL,
        "mariadb",
        env("POSTBOX_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test"),
        env("POSTBOX_MARIADB_USER", "root"),
        env("POSTBOX_MARIADB_PASSWORD", ""),
        null);
  }

  static RelDb sqlite() {
    try {
      Path file = Files.createTempFile("postbox-rel-", ".db");
      return new RelDb(
          Database.SQLITE,
          "sqlite",
          "jdbc:sqlite:" + file + "?journal_mode=WAL&busy_timeout=30000",
          "",
          "",
          file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static RelDb open(String label) {
    return switch (label) {
      case "postgresql" -> postgres();
      case "mariadb" -> mariadb();
      case "sqlite" -> sqlite();
      default -> throw new IllegalArgumentException(label);
    };
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }

  DataSource ds() {
    return pool;
  }

  /** Connections this JVM's pool holds open now. */
  int poolConnections() {
    return pool.getHikariPoolMXBean() == null
        ? 0
        : pool.getHikariPoolMXBean().getTotalConnections();
  }

  /** The arguments that tell a dispatcher process where this database is. */
  List<String> childArgs() {
    return List.of("--db=" + label, "--url=" + url, "--user=" + user, "--password=" + password);
  }

  /** Drops and recreates the Postbox tables (the shipped schema file) and the ledger tables. */
  void reset() {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      for (String table : POSTBOX_TABLES) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
      for (String table : REL_TABLES) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
      for (String statement : TestDatabase.statements(Files.readString(schemaFile()))) {
        s.execute(statement);
      }
      for (String statement : relSchema()) {
        s.execute(statement);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("resetting the schema of " + label, e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path schemaFile() {
    String dir =
        switch (database) {
          case POSTGRESQL -> "postgresql";
          case MYSQL -> "mysql";
          case H2 -> "h2";
          case SQLITE -> "sqlite";
        };
    return Path.of("sql", dir, "schema.sql");
  }

  private List<String> relSchema() {
    String time;
    String id;
    String suffix = "";
    switch (database) {
      case POSTGRESQL -> {
        time = "TIMESTAMPTZ";
        id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
      }
      case MYSQL -> {
        time = "DATETIME(6)";
        id = "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY";
        suffix = " ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin";
      }
      case SQLITE -> {
        time = "INTEGER";
        id = "INTEGER PRIMARY KEY AUTOINCREMENT";
      }
      default -> throw new IllegalStateException(database.toString());
    }
    return List.of(
        "CREATE TABLE rel_ledger (event_id VARCHAR(128) NOT NULL PRIMARY KEY,"
            + " msg_key VARCHAR(64) NOT NULL, seq BIGINT NOT NULL, poison SMALLINT NOT NULL,"
            + " due_at "
            + time
            + " NOT NULL, created_at "
            + time
            + " NOT NULL)"
            + suffix,
        "CREATE TABLE rel_deliveries (id "
            + id
            + ", event_id VARCHAR(128) NOT NULL, instance_id VARCHAR(100) NOT NULL,"
            + " attempt INT NOT NULL, ok SMALLINT NOT NULL, lease_ok SMALLINT NOT NULL,"
            + " lease_owner VARCHAR(200), lease_left_ms BIGINT NOT NULL,"
            + " delivered_at "
            + time
            + " NOT NULL)"
            + suffix,
        "CREATE INDEX rel_deliveries_event ON rel_deliveries (event_id, attempt)");
  }

  long count(String sql, Object... params) {
    Object value = value(sql, params);
    return value == null ? 0 : ((Number) value).longValue();
  }

  Object value(String sql, Object... params) {
    List<Object[]> rows = rows(sql, params);
    return rows.isEmpty() ? null : rows.get(0)[0];
  }

  List<Object[]> rows(String sql, Object... params) {
    return retrying(() -> rowsOnce(sql, params));
  }

  private List<Object[]> rowsOnce(String sql, Object... params) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        int n = rs.getMetaData().getColumnCount();
        List<Object[]> rows = new ArrayList<>();
        while (rs.next()) {
          Object[] row = new Object[n];
          for (int i = 0; i < n; i++) {
            row[i] = rs.getObject(i + 1);
          }
          rows.add(row);
        }
        return rows;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Instants of the first column, read as the dialect writes them. */
  List<Instant> instants(String sql, Object... params) {
    return retrying(() -> instantsOnce(sql, params));
  }

  private List<Instant> instantsOnce(String sql, Object... params) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        List<Instant> out = new ArrayList<>();
        String column = rs.getMetaData().getColumnLabel(1);
        while (rs.next()) {
          out.add(dialect.readInstant(rs, column));
        }
        return out;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  int update(String sql, Object... params) {
    return retrying(() -> updateOnce(sql, params));
  }

  /**
   * Runs a checker query again while the connection to the server is broken (a server restart, ours
   * or anyone's), for up to a minute; any other error fails at once.
   */
  private static <T> T retrying(java.util.function.Supplier<T> query) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
    while (true) {
      try {
        return query.get();
      } catch (IllegalStateException e) {
        if (!(e.getCause() instanceof SQLException s)
            || !connectionLost(s)
            || System.nanoTime() > deadline) {
          throw e;
        }
        Child.sleep(250);
      }
    }
  }

  private static boolean connectionLost(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLTransientConnectionException
          || t instanceof java.sql.SQLNonTransientConnectionException
          || t instanceof java.io.EOFException
          || t instanceof java.net.SocketException
          || (t instanceof SQLException s
              && s.getSQLState() != null
              && (s.getSQLState().startsWith("08") || s.getSQLState().equals("57P01")))) {
        return true;
      }
    }
    return false;
  }

  private int updateOnce(String sql, Object... params) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static void bind(PreparedStatement ps, Object[] params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      ps.setObject(i + 1, params[i]);
    }
  }

  /** The database clock now. */
  Instant now() {
    return instants("SELECT " + dialect.now() + " AS now_value").get(0);
  }

  /** SQL: the database clock. */
  String nowSql() {
    return dialect.now();
  }

  /** SQL: the database clock plus one bound parameter of milliseconds. */
  String nowPlusSql() {
    return dialect.nowPlusMillis();
  }

  @Override
  public void close() {
    pool.close();
    if (sqliteFile != null) {
      for (String suffix : List.of("", "-wal", "-shm")) {
        try {
          Files.deleteIfExists(Path.of(sqliteFile + suffix));
        } catch (IOException ignored) {
          // a temp file left behind is harmless
        }
      }
    }
  }
}

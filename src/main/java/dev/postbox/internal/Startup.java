package dev.postbox.internal;

import dev.postbox.Database;
import dev.postbox.PostboxException;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a dispatcher checks before it starts: which database, and whether its tables are there. */
public final class Startup {
  private static final Logger log = LoggerFactory.getLogger(Startup.class);

  /** The columns every queue table has, besides its own. */
  public static final String QUEUE_COLUMNS =
      "id, state, attempts, claims, snoozes, available_at, leased_by, last_error, created_at";

  /** The columns of the keys table ({@link KeyLocks}) a start checks. */
  static final String KEYS_TABLE_COLUMNS = "msg_key";

  private Startup() {}

  /** {@code forced}, or the database {@code dataSource}'s metadata names; logged at INFO. */
  public static Database database(DataSource dataSource, Database forced, String instanceId) {
    if (forced != null) {
      log.info("{} - database forced to {}", instanceId, forced);
      return forced;
    }
    try (Connection c = dataSource.getConnection()) {
      Database detected = Dialects.detect(c);
      log.info(
          "{} - detected {} ({} {})",
          instanceId,
          detected,
          c.getMetaData().getDatabaseProductName(),
          c.getMetaData().getDatabaseProductVersion());
      return detected;
    } catch (SQLException e) {
      throw Jdbc.wrap(instanceId + " - connecting to detect the database", e);
    }
  }

  /**
   * Checks that {@code table} has {@code columns}.
   *
   * @throws PostboxException naming the table and the schema file to run, if it has not
   */
  public static void checkColumns(
      DataSource dataSource, Database database, String table, String columns) {
    try {
      Jdbc.autoCommit(
          dataSource,
          c -> {
            try (Statement s = c.createStatement()) {
              s.executeQuery(columnsCheck(table, columns)).close();
            }
            return null;
          });
    } catch (SQLException e) {
      String folder = database.name().toLowerCase(Locale.ROOT);
      throw new PostboxException(
          "table "
              + table
              + " not found or not as shipped — run the schema shipped in the postbox jar as"
              + " META-INF/postbox/sql/"
              + folder
              + "/schema.sql (sql/"
              + folder
              + "/schema.sql in the source repository), or for a table made by an earlier version"
              + " the upgrade-N-to-M.sql scripts next to it, as UPGRADING.md says ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  /** The statement that fails unless {@code table} has {@code columns}; it reads no row. */
  static String columnsCheck(String table, String columns) {
    return Home.common(Sql.CHECK_COLUMNS).replace("{table}", table).replace("{columns}", columns);
  }

  /**
   * Checks that an outbox {@code table} ordered by key has what its adds lock keys with: on MySQL,
   * MariaDB and H2 the table {@code <table>_keys} ({@link KeyLocks}).
   *
   * @throws PostboxException naming the missing table and the upgrade to run
   */
  public static void checkKeysTable(DataSource dataSource, Database database, String table) {
    if (KeysPrune.hasKeysTable(database)) {
      checkColumns(dataSource, database, KeyLocks.keysTable(table), KEYS_TABLE_COLUMNS);
    }
  }
}

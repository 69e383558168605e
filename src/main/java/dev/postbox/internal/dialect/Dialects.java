package dev.postbox.internal.dialect;

import dev.postbox.Database;
import dev.postbox.PostboxException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** Picks the dialect for a database, by name or from a connection's metadata. */
public final class Dialects {
  private Dialects() {}

  public static Dialect of(Database database) {
    return switch (database) {
      case POSTGRESQL -> new PostgresDialect();
      case MYSQL -> new MySqlDialect();
      case H2 -> new H2Dialect();
      case SQLITE -> new SqliteDialect();
    };
  }

  /** Detects the database from {@link java.sql.DatabaseMetaData#getDatabaseProductName()}. */
  public static Database detect(Connection connection) throws SQLException {
    String product = connection.getMetaData().getDatabaseProductName();
    String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (name.contains("postgres")) {
      return Database.POSTGRESQL;
    }
    if (name.contains("mysql") || name.contains("mariadb")) {
      return Database.MYSQL;
    }
    if (name.equals("h2")) {
      return Database.H2;
    }
    if (name.contains("sqlite")) {
      return Database.SQLITE;
    }
    throw new PostboxException(
        "database '"
            + product
            + "' is not supported — use PostgreSQL, MySQL/MariaDB, H2 or SQLite,"
            + " or force a dispatcher's with Dispatcher.Builder.database(...)");
  }
}

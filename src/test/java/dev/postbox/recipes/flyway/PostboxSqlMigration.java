package dev.postbox.recipes.flyway;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * A Flyway Java migration that runs one of the SQL files the Postbox jar ships ({@code
 * META-INF/postbox/sql/<db>/schema.sql} or {@code upgrade-N-to-M.sql}) for the database Flyway
 * migrates. Subclass it once per file, named in your own numbering ({@code V1_1__PostboxSchema});
 * Flyway takes the version and description from the subclass's name.
 *
 * <p>Runs on Flyway's migration connection, inside Flyway's transaction where the database has
 * transactional DDL (PostgreSQL); MySQL and MariaDB commit each DDL statement on their own.
 */
public abstract class PostboxSqlMigration extends BaseJavaMigration {
  private final String file;

  /**
   * @param file the file name inside the database's folder: {@code "schema.sql"} or {@code
   *     "upgrade-4-to-5.sql"}
   */
  protected PostboxSqlMigration(String file) {
    this.file = file;
  }

  @Override
  public void migrate(Context context) throws Exception {
    Connection connection = context.getConnection();
    String script = read(resource(folder(connection), file));
    try (Statement statement = connection.createStatement()) {
      for (String sql : statements(script)) {
        statement.execute(sql);
      }
    }
  }

  /**
   * The resource name of a shipped file, e.g. {@code META-INF/postbox/sql/postgresql/schema.sql}.
   */
  static String resource(String folder, String file) {
    return "META-INF/postbox/sql/" + folder + "/" + file;
  }

  /** The folder of the database's shipped files, from the JDBC driver's product name. */
  static String folder(Connection connection) throws SQLException {
    String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    if (product.contains("postgres")) {
      return "postgresql";
    }
    if (product.contains("mysql") || product.contains("mariadb")) {
      return "mysql";
    }
    if (product.contains("h2")) {
      return "h2";
    }
    if (product.contains("sqlite")) {
      return "sqlite";
    }
    throw new IllegalStateException("Postbox ships no schema for " + product);
  }

  /**
   * Reads a file of the Postbox jar, on the class path or the module path: {@code META-INF} is no
   * package, so the {@code dev.postbox} module does not encapsulate it.
   */
  static String read(String resource) throws IOException {
    // the loader that loaded Postbox finds its jar's files, whatever loader loaded Flyway
    ClassLoader loader = dev.postbox.Outbox.class.getClassLoader();
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " not found: is the Postbox jar on the path?");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * Splits a shipped file into statements. The shipped files keep to three rules this relies on:
   * comments are {@code --} comments (whole lines or line ends) with no {@code --} inside string
   * literals, every statement ends with {@code ;} at the end of a line, and there are no {@code $$}
   * bodies (functions, DO blocks).
   */
  static List<String> statements(String script) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : script.split("\r?\n")) {
      int comment = line.indexOf("--");
      String code = (comment >= 0 ? line.substring(0, comment) : line).strip();
      if (code.isEmpty()) {
        continue;
      }
      if (code.endsWith(";")) {
        current.append(code, 0, code.length() - 1);
        statements.add(current.toString());
        current.setLength(0);
      } else {
        current.append(code).append('\n');
      }
    }
    if (!current.isEmpty()) {
      throw new IllegalStateException("the script ends without ';': " + current);
    }
    return statements;
  }
}

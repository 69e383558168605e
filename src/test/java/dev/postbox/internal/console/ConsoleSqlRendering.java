package dev.postbox.internal.console;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.QueueTable;
import dev.postbox.internal.sql.Sql;
import dev.postbox.testing.RenderedSql;

/** Renders the console's statements ({@link ConsoleSql}) for {@code RenderedSqlTest}. */
public final class ConsoleSqlRendering {
  private ConsoleSqlRendering() {}

  /** Renders into {@code out} the console's statements on {@code table}, payloads shown. */
  public static void render(RenderedSql.Folder out, Dialect d, QueueTable<?> table) {
    String[] params = {
      "none",
      "none",
      "topic, key, error text, after id, page size",
      "topic, key, error text, after id, page size",
      "topic, key, error text, the limit",
      "3 ids",
      "3 ids",
      "the ref"
    };
    int i = 0;
    for (var statement : new ConsoleSql(d, table, true).statements().entrySet()) {
      out.add("console-" + statement.getKey(), params[i++], statement.getValue());
    }
  }

  /** Renders into {@code out} the console's count of the inbox {@code table}. */
  public static void inbox(RenderedSql.Folder out, Dialect d, String table) {
    out.add(
        "console-count", "none", Home.text(Sql.CONSOLE_INBOX_COUNT, d).replace("{table}", table));
  }
}

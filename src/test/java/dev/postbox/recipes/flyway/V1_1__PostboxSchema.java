package dev.postbox.recipes.flyway;

/**
 * The Postbox tables at the schema version of the Postbox jar on the path, as version 1.1 of an
 * application's own Flyway migrations. Register it with {@code
 * Flyway.configure().javaMigrations(new V1_1__PostboxSchema())}. A later Postbox schema version
 * gets its own class in the application's numbering, e.g. {@code V1_7__PostboxUpgrade4To5} passing
 * {@code "upgrade-4-to-5.sql"}.
 */
public class V1_1__PostboxSchema extends PostboxSqlMigration {
  public V1_1__PostboxSchema() {
    super("schema.sql");
  }
}

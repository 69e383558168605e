package dev.postbox.internal;

import dev.postbox.InvalidValueException;

/**
 * The options the outbox's, the job queue's and the inbox's builders share, each checked when set:
 * the table, the payload limit, whether connections in auto-commit mode are accepted and whether
 * each insert notifies the dispatchers (PostgreSQL). Immutable: a builder holds one and replaces it
 * on each option, so what a built producer keeps never changes.
 *
 * @param table {@code name} or {@code schema.name}
 * @param suffix the longest suffix Postbox adds to the table's name (its companion tables), or ""
 * @param payloadLimit the largest payload accepted, in UTF-8 bytes
 * @param allowAutoCommit whether connections in auto-commit mode are accepted
 * @param notifies whether each insert also notifies the table's channel (PostgreSQL)
 */
public record ProducerOptions(
    String table, String suffix, int payloadLimit, boolean allowAutoCommit, boolean notifies) {

  /** The defaults for a table named {@code table}, whose companion tables add {@code suffix}. */
  public static ProducerOptions of(String table, String suffix) {
    return new ProducerOptions(table, suffix, Rules.DEFAULT_PAYLOAD_LIMIT, false, false);
  }

  /** These options with {@code table}, checked as a table name with room for the suffix. */
  public ProducerOptions table(String table) {
    String checked =
        suffix.isEmpty()
            ? Identifiers.tableName("table", table)
            : Identifiers.tableName("table", table, suffix);
    return new ProducerOptions(checked, suffix, payloadLimit, allowAutoCommit, notifies);
  }

  /** These options with a payload limit of {@code bytes}, 1 to 64 MiB. */
  public ProducerOptions payloadLimit(int bytes) {
    int limit = Require.between("payloadLimit", bytes, 1, 64 * 1024 * 1024);
    return new ProducerOptions(table, suffix, limit, allowAutoCommit, notifies);
  }

  /** These options accepting, or not, connections in auto-commit mode. */
  public ProducerOptions allowAutoCommit(boolean allow) {
    return new ProducerOptions(table, suffix, payloadLimit, allow, notifies);
  }

  /** These options notifying, or not, the dispatchers of each insert. */
  public ProducerOptions notifies(boolean notify) {
    return new ProducerOptions(table, suffix, payloadLimit, allowAutoCommit, notify);
  }

  /**
   * These options, once checked together: a notifying table's name must fit a PostgreSQL channel.
   *
   * @throws InvalidValueException naming {@code notifyOption} if it does not
   */
  public ProducerOptions checked(String notifyOption) {
    if (notifies
        && PostgresNotifications.channel(table).length() > PostgresNotifications.MAX_CHANNEL) {
      throw new InvalidValueException(
          notifyOption,
          "needs a table name of at most "
              + PostgresNotifications.MAX_CHANNEL
              + " characters (a PostgreSQL channel name) but '"
              + table
              + "' has "
              + table.length());
    }
    return this;
  }
}

/**
 * Every statement the engine runs on a queue table, one home per database ({@code
 * PostgresQueueSql}, {@code MySqlQueueSql}, {@code H2QueueSql}, {@code SqliteQueueSql}), the code
 * that binds them ({@link dev.postbox.internal.sql.QueueSql}) and the claim strategies that run
 * them.
 */
package dev.postbox.internal.sql;

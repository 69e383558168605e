/**
 * Every statement the engine runs on a queue table, one home per database ({@code
 * PostgresQueueSql}, {@code MySqlQueueSql}, {@code H2QueueSql}, {@code SqliteQueueSql}), the code
 * that binds them ({@link dev.postbox.internal.sql.QueueSql}), the claim strategies that run them
 * and per-key order's part of a claim.
 */
package dev.postbox.internal.sql;

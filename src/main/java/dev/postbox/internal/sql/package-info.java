/**
 * The statement catalogue and what runs it: {@link dev.postbox.internal.sql.Sql} names every
 * statement, {@link dev.postbox.internal.sql.Home} reads each database's files (one per statement,
 * under {@code src/main/resources/dev/postbox/internal/sql/statements/}, {@code common/} for those
 * written once), {@link dev.postbox.internal.sql.QueueSql} fills in one table's and binds them, the
 * claim strategies run them (one per database) and per-key order adds its part to a claim ({@code
 * KeyOrder}, {@code KeyWalk}, {@code Runs}).
 */
package dev.postbox.internal.sql;

package dev.postbox;

/**
 * The databases Postbox speaks to, each with its own hand-written SQL and {@code
 * sql/<db>/schema.sql}.
 *
 * <p>Detected from {@link java.sql.DatabaseMetaData#getDatabaseProductName()} on each connection; a
 * dispatcher's can be forced with {@link Dispatcher.Builder#database}. Immutable and thread-safe,
 * as every enum. Guide: {@code docs/operations.md#databases}.
 */
public enum Database {
  /** PostgreSQL 12 or newer. */
  POSTGRESQL,
  /** MySQL 8.0.1+ or MariaDB 10.6+ (one dialect). */
  MYSQL,
  /** H2 2.2.220 or newer, MVStore. */
  H2,
  /** SQLite 3.35 or newer. */
  SQLITE
}

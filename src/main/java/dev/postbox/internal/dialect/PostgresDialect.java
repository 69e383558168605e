package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

/** PostgreSQL: one-statement claim with SKIP LOCKED and RETURNING; ON CONFLICT DO NOTHING. */
final class PostgresDialect implements Dialect {

  @Override
  public Database database() {
    return Database.POSTGRESQL;
  }

  @Override
  public String now() {
    return "statement_timestamp()";
  }

  @Override
  public String nowPlusMillis() {
    return "(statement_timestamp() + ? * interval '1 millisecond')";
  }

  @Override
  public Instant readInstant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  @Override
  public boolean claimsWithUpdateReturning() {
    return true;
  }

  @Override
  public String vacuum(String table) {
    return "VACUUM (ANALYZE) " + table;
  }

  @Override
  public String idIn(String dueSelect) {
    // ARRAY(subquery) is an InitPlan, run exactly once; "id IN (subquery)" may become a semi-join
    // that re-runs the LIMITed FOR UPDATE subquery and leases far more rows than the LIMIT
    return "id = ANY (ARRAY(" + dueSelect + "))";
  }

  @Override
  public String skipLocked() {
    return " FOR UPDATE SKIP LOCKED";
  }

  @Override
  public String insertSkippingDuplicates(
      String table, String columns, String valueRows, String uniqueColumn) {
    // a duplicate must not abort the caller's transaction, so no exception may be raised at all
    return "INSERT INTO "
        + table
        + " ("
        + columns
        + ") VALUES "
        + valueRows
        + " ON CONFLICT ("
        + uniqueColumn
        + ") DO NOTHING";
  }

  @Override
  public String insertAndNotify(String insert, String channel) {
    // one round trip; NOTIFY is delivered at commit, never for a rolled-back transaction, and
    // PostgreSQL folds identical notifications of one transaction into one
    return "WITH added AS ("
        + insert
        + " RETURNING 1) SELECT COUNT(*), pg_notify('"
        + channel
        + "', '') FROM added";
  }

  @Override
  public boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  @Override
  public boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state) || "55P03".equals(state);
  }
}

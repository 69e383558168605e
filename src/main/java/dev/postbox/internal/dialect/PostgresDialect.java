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
  public String claimReturning(String table, String dueSelect, String claimSet, String returned) {
    // A MATERIALIZED CTE runs exactly once: "id IN (subquery)" may become a semi-join that re-runs
    // the LIMITed FOR UPDATE subquery and leases more rows than the LIMIT. Joined by primary key,
    // it is planned as index probes even in the generic plan made while the table was empty; the
    // earlier "id = ANY (ARRAY(subquery))" got a sequential scan there, and pgjdbc keeps that plan
    // for the connection's life, scanning every dead row of a grown table on each claim. The
    // lease CTE only keeps the parameters in the order of the other dialects' claim. The CTE names
    // hold a '$', which no validated table name can, so they never shadow or clash with the table.
    return LEASE
        + " claim$due (due_id) AS MATERIALIZED ("
        + dueSelect
        + ") "
        + lease(table, claimSet, returned);
  }

  @Override
  public String claimReturningAfter(
      String table, String dueSelect, String claimSet, String returned, String finish) {
    // Rows finished here are leased by this instance, so they are not due and the claim cannot
    // pick them (should a lease have run out meanwhile, the claim skips the row that this very
    // statement deletes, and the fenced finish counts it as lost). The count comes from a LEFT
    // JOIN so that it arrives even when nothing is claimed.
    return LEASE
        + " claim$finished AS ("
        + finish
        + " RETURNING 1), claim$due (due_id) AS MATERIALIZED ("
        + dueSelect
        + "), claim$claimed AS ("
        + lease(table, claimSet, returned)
        + ") SELECT claim$claimed.*, claim$count.finished$rows FROM (SELECT COUNT(*) AS"
        + " finished$rows FROM claim$finished) claim$count LEFT JOIN claim$claimed ON TRUE";
  }

  private static final String LEASE =
      "WITH claim$lease (lease_owner, lease_millis) AS"
          + " (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),";

  private static String lease(String table, String claimSet, String returned) {
    return "UPDATE "
        + table
        + " SET leased_by = claim$lease.lease_owner, attempts = attempts + 1, claims = claims + 1"
        + claimSet
        + ", available_at ="
        + " statement_timestamp() + claim$lease.lease_millis * interval '1 millisecond'"
        + " FROM claim$due, claim$lease WHERE id = claim$due.due_id RETURNING "
        + returned;
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

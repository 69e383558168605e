package dev.postbox;

import dev.postbox.internal.QueueAdmin;
import dev.postbox.internal.TableWriter;
import dev.postbox.internal.sql.QueueTable;
import java.sql.Connection;
import java.util.List;

/**
 * What the outbox and the job queue share: their table and its writer, and the reads and replays of
 * their rows that do not depend on how a row is named (event id or job id). Every method runs only
 * on the connection it is given and never commits, rolls back or closes it.
 */
abstract sealed class ProducerTable<T> permits Outbox, JobControls {
  final TableWriter writer;
  private final QueueTable<T> queueTable;
  private final QueueAdmin admin;

  /** {@code rows}: what the table's rows are called in messages, "messages" or "jobs". */
  ProducerTable(TableWriter writer, QueueTable<T> queueTable, String rows) {
    this.writer = writer;
    this.queueTable = queueTable;
    this.admin = new QueueAdmin(queueTable, rows, writer.dialects());
  }

  final QueueAdmin admin() {
    return admin;
  }

  final QueueTable<T> queueTable() {
    return queueTable;
  }

  /** {@return the table's name as configured, {@code name} or {@code schema.name}} */
  public String table() {
    return writer.table();
  }

  /**
   * Counts the messages not yet delivered, or the jobs not yet finished, that are not parked; those
   * in flight or waiting for a retry included.
   *
   * @param connection the connection to run on
   * @return the pending rows
   */
  public long countPending(Connection connection) {
    return admin.countPending(connection);
  }

  /**
   * Pending, due, leased and parked counts and the oldest pending row's age; on an outbox whose
   * parked messages block their keys, the blocked keys and messages too.
   *
   * @param connection the connection to run on
   * @return the counts, by the database clock
   */
  public QueueStats stats(Connection connection) {
    return admin.stats(connection);
  }

  /**
   * Up to {@code limit} parked rows, the oldest first; {@link Parked#ref()} is a message's event id
   * or a job's id.
   *
   * @param connection the connection to run on
   * @param limit the most to return, 1 to 100,000
   * @return the parked rows, by id
   * @throws InvalidValueException if {@code limit} is out of range
   */
  public List<Parked> parked(Connection connection, int limit) {
    return admin.parked(connection, limit);
  }

  /**
   * Up to {@code limit} failing rows: pending, failed at least once and waiting for their next
   * attempt, the soonest first; {@link Failing#ref()} is a message's event id or a job's id.
   *
   * @param connection the connection to run on
   * @param limit the most to return, 1 to 100,000
   * @return the failing rows, with their attempts, last error and next attempt
   * @throws InvalidValueException if {@code limit} is out of range; nothing is read
   */
  public List<Failing> failing(Connection connection, int limit) {
    return admin.failing(connection, limit);
  }

  /**
   * Makes every parked row due again with its attempts reset.
   *
   * @param connection the connection to run on
   * @return how many rows were replayed
   */
  public int replayAll(Connection connection) {
    return admin.replayAll(connection);
  }
}

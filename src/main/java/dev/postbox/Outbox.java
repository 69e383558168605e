package dev.postbox;

import dev.postbox.internal.HeadersCodec;
import dev.postbox.internal.Ids;
import dev.postbox.internal.ProducerOptions;
import dev.postbox.internal.QueueAdmin;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.TableWriter;
import dev.postbox.internal.sql.KeyOrder;
import dev.postbox.internal.sql.QueueTable;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The transactional outbox: adds messages to the outbox table in the caller's transaction, so they
 * are stored if and only if the caller's business data commits; a {@link Dispatcher} delivers them.
 *
 * <p>Thread-safe and immutable once built. Every method runs only on the connection it is given and
 * never commits, rolls back or closes it.
 */
public final class Outbox {
  private final int payloadLimit;
  private final Supplier<Map<String, String>> headerSupplier;
  private final boolean notify;
  private final QueueTable<Envelope> queueTable;
  final TableWriter writer;
  private final QueueAdmin admin;
  private final boolean orderedByKey;
  private final OrderedParking onParked;

  private Outbox(Builder b) {
    ProducerOptions options = b.options;
    this.payloadLimit = options.payloadLimit();
    this.headerSupplier = b.headers;
    this.notify = options.notifies();
    this.orderedByKey = b.orderedByKey;
    this.onParked = b.onParked;
    this.queueTable =
        OutboxRows.queueTable(
            options.table(),
            b.orderedByKey
                ? new KeyOrder(OutboxRows.KEY, b.onParked == OrderedParking.BLOCK_KEY)
                : null);
    TableWriter plain =
        new TableWriter(
            options,
            OutboxRows.INSERTED,
            OutboxRows.TYPES,
            "event_id",
            OutboxRows.TUPLE,
            TableWriter.autoCommitRefusal(
                "the message would not be atomic with your business data", "add"));
    this.writer = b.orderedByKey ? plain.lockingKeys(OutboxRows.KEY_VALUE) : plain;
    this.admin = new QueueAdmin(queueTable, "messages", writer.dialects());
  }

  /**
   * A builder with the defaults: table {@code postbox_outbox}, payload limit 1 MiB, delivery in key
   * order with {@link OrderedParking#BLOCK_KEY}.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The outbox table's name as configured.
   *
   * @return {@code name} or {@code schema.name}
   */
  public String table() {
    return writer.table();
  }

  /**
   * Whether messages with the same key are delivered in the order their adds committed.
   *
   * @return the {@link Builder#orderedByKey} setting
   */
  public boolean orderedByKey() {
    return orderedByKey;
  }

  /**
   * What a parked message does to the later messages of its key, when ordered by key.
   *
   * @return the {@link Builder#onParked} setting
   */
  public OrderedParking onParked() {
    return onParked;
  }

  /**
   * Adds {@code message} in the caller's transaction. Returns false, without failing the
   * transaction, if a message with the same event id is already stored. (Only the caller's event
   * ids can be: a message without one gets a generated UUIDv7 and a plain INSERT, which on
   * PostgreSQL and SQLite is cheaper than the insert-if-absent form.)
   *
   * <p>When the outbox is ordered by key and the message has a key, the add first locks the key
   * until the caller's transaction ends, so that messages of one key are delivered in the order
   * their transactions commit: another transaction adding to the same key waits for this one.
   * Several keys in one transaction: add them with one {@link #addAll}, or always in the same key
   * order. Two transactions that add two keys in opposite orders by separate adds wait for each
   * other: the database ends one with its deadlock error (H2 both, at its lock timeout), thrown as
   * a {@code PostboxException} whose cause is the database's {@code SQLException}; the caller rolls
   * that transaction back and retries it, as for any deadlock.
   *
   * @param connection the caller's connection, in its transaction
   * @param message the message
   * @return true if the message was stored, false if its event id already was
   * @throws InvalidValueException if the message is null, its payload is over the limit or holds a
   *     NUL character, or a header is invalid; nothing is written
   * @throws PostboxException if the connection is in auto-commit mode (unless allowed) or the
   *     INSERT fails
   */
  public boolean add(Connection connection, Message message) {
    Require.notNull("message", message);
    List<Object[]> row = List.<Object[]>of(row(message));
    return writer.insert(
            connection, row, message.eventId() != null, "adding 1 messages to " + table())
        == 1;
  }

  /**
   * Adds {@code messages} in the caller's transaction, one statement per 500 messages (on an outbox
   * ordered by key, after locking their keys as {@link #add} does). All messages are validated
   * before anything is written.
   *
   * <p>The keys are locked at once, in one order shared by every transaction, so two {@code addAll}
   * calls never deadlock each other, whatever the order of their messages. On PostgreSQL an {@code
   * addAll} of more than 1,000 distinct keys locks the keys of the whole table instead of each key
   * (one lock per key would fill the server's shared lock table): it waits for the open
   * transactions that added keyed messages, and keyed adds wait for it until its transaction ends.
   *
   * @param connection the caller's connection, in its transaction
   * @param messages the messages; may be empty
   * @return how many were stored; a message whose event id already was is not
   * @throws InvalidValueException if a message is null, its payload is over the limit or holds a
   *     NUL character, or a header is invalid; nothing is written
   * @throws PostboxException if the connection is in auto-commit mode (unless allowed) or the
   *     INSERT fails
   */
  public int addAll(Connection connection, Collection<Message> messages) {
    Require.notNull("messages", messages);
    List<Object[]> rows = new ArrayList<>(messages.size());
    boolean callerIds = false; // only the caller's event ids can be stored already
    for (Message m : messages) {
      rows.add(row(Require.notNull("message", m)));
      callerIds |= m.eventId() != null;
    }
    return rows.isEmpty()
        ? 0
        : writer.insert(
            connection, rows, callerIds, "adding " + rows.size() + " messages to " + table());
  }

  /**
   * Counts messages not yet delivered (not parked). Never claims anything.
   *
   * @param connection the connection to run on, in its transaction if one is open
   * @return the pending messages, including those being sent or waiting for a retry
   * @throws PostboxException if the query fails
   */
  public long countPending(Connection connection) {
    return admin.countPending(connection);
  }

  /**
   * Pending, due, leased and parked counts, the oldest pending age and, when parked messages block
   * their keys, the blocked keys. Never claims anything.
   *
   * @param connection the connection to run on, in its transaction if one is open
   * @return the counts, by the database clock
   * @throws PostboxException if the query fails
   */
  public QueueStats stats(Connection connection) {
    return admin.stats(connection);
  }

  /**
   * Up to {@code limit} parked messages, oldest first; {@link Parked#ref()} is the event id.
   *
   * @param connection the connection to run on, in its transaction if one is open
   * @param limit the most to return, 1 to 100,000
   * @return the parked messages, by id
   * @throws InvalidValueException if {@code limit} is out of range
   * @throws PostboxException if the query fails
   */
  public List<Parked> parked(Connection connection, int limit) {
    return admin.parked(connection, limit);
  }

  /**
   * Up to {@code limit} failing messages: pending, failed at least once and waiting for their next
   * attempt, the soonest next attempt first; {@link Failing#ref()} is the event id. Read in one
   * statement on the caller's connection; never claims, never commits.
   *
   * @param connection the connection to run on, in its transaction if one is open
   * @param limit the most to return, 1 to 100,000
   * @return the failing messages, with their attempts, last error and next attempt
   * @throws InvalidValueException if {@code limit} is out of range; nothing is read
   * @throws PostboxException if the query fails
   */
  public List<Failing> failing(Connection connection, int limit) {
    return admin.failing(connection, limit);
  }

  /**
   * Up to {@code limit} keys whose delivery waits for a parked message ({@link
   * OrderedParking#BLOCK_KEY}), oldest parked first, each with that message and how many wait
   * behind it; empty if the outbox is not ordered by key or skips parked messages.
   *
   * @param connection the connection to run on, in its transaction if one is open
   * @param limit the most to return, 1 to 100,000
   * @return the blocked keys
   * @throws InvalidValueException if {@code limit} is out of range
   * @throws PostboxException if the query fails
   */
  public List<BlockedKey> blockedKeys(Connection connection, int limit) {
    return admin.blockedKeys(connection, limit);
  }

  /**
   * Makes the parked message with {@code eventId} due again with its attempts reset. On an outbox
   * ordered by key it is delivered before the later messages of its key.
   *
   * @param connection the connection to run on, in its transaction if one is open
   * @param eventId the message's event id
   * @return true if it was replayed, false if there is no such parked message
   * @throws InvalidValueException if the event id breaks the rules
   * @throws PostboxException if the UPDATE fails
   */
  public boolean replay(Connection connection, String eventId) {
    Rules.eventId("eventId", eventId);
    return admin.replay(connection, eventId, eventId);
  }

  /**
   * Makes every parked message due again with its attempts reset.
   *
   * @param connection the connection to run on, in its transaction if one is open
   * @return how many messages were replayed
   * @throws PostboxException if the UPDATE fails
   */
  public int replayAll(Connection connection) {
    return admin.replayAll(connection);
  }

  /**
   * Deletes the parked message with {@code eventId}; on an outbox that blocks keys, the later
   * messages of its key go on.
   *
   * @param connection the connection to run on, in its transaction if one is open
   * @param eventId the message's event id
   * @return true if it was deleted, false if there is no such parked message
   * @throws InvalidValueException if the event id breaks the rules
   * @throws PostboxException if the DELETE fails
   */
  public boolean discard(Connection connection, String eventId) {
    Rules.eventId("eventId", eventId);
    return admin.discard(connection, eventId, eventId);
  }

  QueueTable<Envelope> queueTable() {
    return queueTable;
  }

  boolean notifies() {
    return notify;
  }

  private Object[] row(Message m) {
    Rules.payload(m.payload(), payloadLimit);
    Map<String, String> headers = m.headers();
    if (headerSupplier != null) {
      Map<String, String> supplied = headerSupplier.get();
      if (supplied != null && !supplied.isEmpty()) {
        Map<String, String> merged = new LinkedHashMap<>(supplied);
        merged.forEach(Rules::header);
        merged.putAll(headers); // explicit headers on the message win
        Rules.headerCount(merged.size());
        headers = merged;
      }
    }
    String eventId = m.eventId() != null ? m.eventId() : Ids.uuidV7();
    return new Object[] {eventId, m.topic(), m.key(), m.payload(), HeadersCodec.encode(headers)};
  }

  /**
   * Configures an {@link Outbox}; each option is validated as it is set, and {@link #build()}
   * copies them, so later changes change nothing built. Not thread-safe. Options with their
   * defaults: {@code docs/operations.md}.
   */
  public static final class Builder {
    private ProducerOptions options = ProducerOptions.of("postbox_outbox", "_dispatchers");
    private Supplier<Map<String, String>> headers;
    private boolean orderedByKey = true;
    private OrderedParking onParked = OrderedParking.BLOCK_KEY;

    private Builder() {}

    /**
     * The outbox table, {@code name} or {@code schema.name}; default {@code postbox_outbox}. Its
     * dispatchers register in {@code <table>_dispatchers}; on MySQL, MariaDB and H2 an outbox
     * ordered by key locks keys in {@code <table>_keys}.
     *
     * @param table each part 1-63 letters, digits or '_', not starting with a digit, the table part
     *     at most 51 (room for {@code _dispatchers})
     * @return this builder
     * @throws InvalidValueException if the name breaks the rules
     */
    public Builder table(String table) {
      options = options.table(table);
      return this;
    }

    /**
     * Headers added to every message at add time (e.g. W3C {@code traceparent}, tenant); headers
     * set on the message itself win. Called once per message, on the adding thread; may return null
     * or an empty map.
     *
     * @param supplier the headers' source
     * @return this builder
     * @throws InvalidValueException if {@code supplier} is null
     */
    public Builder headers(Supplier<Map<String, String>> supplier) {
      this.headers = Require.notNull("headers", supplier);
      return this;
    }

    /**
     * Largest payload accepted, in UTF-8 bytes, 1 to 64 MiB; default 1 MiB.
     *
     * @param bytes the limit
     * @return this builder
     * @throws InvalidValueException if the limit is out of range
     */
    public Builder payloadLimit(int bytes) {
      options = options.payloadLimit(bytes);
      return this;
    }

    /**
     * Whether messages with the same key are delivered in the order their adds committed, across
     * all dispatchers of the table; default true, false for keys that are only routing hints. Each
     * keyed add then locks its key until its transaction ends: {@code docs/ordering.md}.
     *
     * @param ordered whether to deliver each key's messages in order
     * @return this builder
     */
    public Builder orderedByKey(boolean ordered) {
      this.orderedByKey = ordered;
      return this;
    }

    /**
     * Accepts connections in auto-commit mode, where each add commits on its own and is no longer
     * atomic with the caller's business data; default false (such connections are refused).
     *
     * @param allow true to accept connections in auto-commit mode
     * @return this builder
     */
    public Builder allowAutoCommit(boolean allow) {
      options = options.allowAutoCommit(allow);
      return this;
    }

    /**
     * What a parked message does to the later messages of its key when ordered by key; default
     * {@link OrderedParking#BLOCK_KEY}.
     *
     * @param policy the policy
     * @return this builder
     * @throws InvalidValueException if {@code policy} is null
     */
    public Builder onParked(OrderedParking policy) {
      this.onParked = Require.notNull("onParked", policy);
      return this;
    }

    /**
     * On PostgreSQL, makes each add {@code NOTIFY} the table's channel (delivered only if its
     * transaction commits) and dispatchers {@code LISTEN} on it, holding one pooled connection, so
     * rows added by other instances are claimed at once. Ignored on other databases; default false.
     *
     * @param notify true to notify the dispatchers of each add
     * @return this builder
     */
    public Builder notifyDispatchers(boolean notify) {
      options = options.notifies(notify);
      return this;
    }

    /**
     * The former name of {@link #notifyDispatchers}.
     *
     * @param notify true to notify the dispatchers of each add
     * @return this builder
     * @deprecated use {@link #notifyDispatchers}, the name the job queue's builder shares
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder notifyOnAdd(boolean notify) {
      return notifyDispatchers(notify);
    }

    /**
     * An outbox with these options.
     *
     * @return the outbox
     * @throws InvalidValueException if {@code notifyDispatchers} is set and the table name is too
     *     long for a PostgreSQL channel name
     */
    public Outbox build() {
      options = options.checked("notifyDispatchers");
      return new Outbox(this);
    }
  }
}

package dev.postbox;

import dev.postbox.internal.ProducerOptions;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.sql.KeyOrder;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The transactional outbox: adds messages to the outbox table in the caller's transaction, so they
 * are stored if and only if the caller's business data commits; a {@link Dispatcher} delivers them.
 *
 * <p>Thread-safe and immutable once built. Every method runs only on the connection it is given, in
 * its transaction if one is open, and never commits, rolls back or closes it; none claims a row,
 * and each throws a {@link PostboxException} if its statement fails. Guide: {@code docs/outbox.md};
 * operating it: {@code docs/operations.md}.
 */
public final class Outbox extends ProducerTable<Envelope> {
  private final int payloadLimit;
  private final Supplier<Map<String, String>> headerSupplier;
  private final boolean notify;
  private final boolean orderedByKey;
  private final OrderedParking onParked;
  private final Duration keepDelivered;

  private Outbox(Builder b) {
    super(
        OutboxRows.writer(b.options, b.orderedByKey),
        OutboxRows.queueTable(
            b.options.table(),
            b.orderedByKey
                ? new KeyOrder(OutboxRows.KEY, b.onParked == OrderedParking.BLOCK_KEY)
                : null),
        "messages");
    this.payloadLimit = b.options.payloadLimit();
    this.headerSupplier = b.headers;
    this.notify = b.options.notifies();
    this.orderedByKey = b.orderedByKey;
    this.onParked = b.onParked;
    this.keepDelivered = b.keepDelivered;
  }

  /**
   * {@return how long a delivered row is kept, as done, before the cleanup deletes it; zero if it
   * is deleted at once}
   */
  public Duration keepDelivered() {
    return keepDelivered;
  }

  /**
   * {@return a new builder with the defaults: table {@code postbox_outbox}, payload limit 1 MiB,
   * delivery in key order with {@link OrderedParking#BLOCK_KEY}}
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@return whether messages with the same key are delivered in the order their adds committed
   * (the {@link Builder#orderedByKey} setting)}
   */
  public boolean orderedByKey() {
    return orderedByKey;
  }

  /**
   * {@return what a parked message does to the later messages of its key, when ordered by key (the
   * {@link Builder#onParked} setting)}
   */
  public OrderedParking onParked() {
    return onParked;
  }

  /**
   * Adds {@code message} in the caller's transaction; false, without failing that transaction, if a
   * message with its event id is already stored. On an outbox ordered by key, a keyed add first
   * locks its key until the transaction ends, so that a key's messages are delivered in commit
   * order; two transactions adding two keys in opposite orders deadlock, and the database ends one
   * (retry it): {@code docs/ordering.md}.
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
    return addAll(connection, List.of(Require.notNull("message", message))) == 1;
  }

  /**
   * Adds {@code messages} in the caller's transaction, one statement per 500, after validating them
   * all. On an outbox ordered by key their keys are locked at once, in an order every transaction
   * shares, so two {@code addAll} calls never deadlock each other: {@code docs/ordering.md}.
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
      rows.add(OutboxRows.row(Require.notNull("message", m), payloadLimit, headerSupplier));
      callerIds |= m.eventId() != null;
    }
    return rows.isEmpty()
        ? 0
        : writer.insert(
            connection, rows, callerIds, "adding " + rows.size() + " messages to " + table());
  }

  /**
   * Up to {@code limit} keys whose delivery waits for a parked message ({@link
   * OrderedParking#BLOCK_KEY}), oldest parked first, each with that message and how many wait
   * behind it; empty if the outbox is not ordered by key or skips parked messages.
   *
   * @param connection the connection to run on
   * @param limit the most to return, 1 to 100,000
   * @return the blocked keys
   * @throws InvalidValueException if {@code limit} is out of range
   */
  public List<BlockedKey> blockedKeys(Connection connection, int limit) {
    return admin().blockedKeys(connection, limit);
  }

  /**
   * Makes the parked message with {@code eventId} due again with its attempts reset; on an outbox
   * ordered by key it goes before the later messages of its key.
   *
   * @param connection the connection to run on
   * @param eventId the message's event id
   * @return true if it was replayed, false if there is no such parked message
   * @throws InvalidValueException if the event id breaks the rules
   */
  public boolean replay(Connection connection, String eventId) {
    Rules.eventId("eventId", eventId);
    return admin().replay(connection, eventId, eventId);
  }

  /**
   * Deletes the parked message with {@code eventId}; on an outbox that blocks keys, the later
   * messages of its key go on.
   *
   * @param connection the connection to run on
   * @param eventId the message's event id
   * @return true if it was deleted, false if there is no such parked message
   * @throws InvalidValueException if the event id breaks the rules
   */
  public boolean discard(Connection connection, String eventId) {
    Rules.eventId("eventId", eventId);
    return admin().discard(connection, eventId, eventId);
  }

  boolean notifies() {
    return notify;
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
    private Duration keepDelivered = Duration.ZERO;

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
     * Keeps each delivered row, as done, for {@code window} instead of deleting it at once; the
     * dispatcher's cleanup removes it after. Meanwhile its event id stays taken (an add of it
     * returns false and is not sent again) and the console shows it delivered. Default zero.
     *
     * @param window 0 to 3,650 days
     * @return this builder
     * @throws InvalidValueException if {@code window} is null or out of range
     */
    public Builder keepDelivered(Duration window) {
      this.keepDelivered =
          Require.between("keepDelivered", window, Duration.ZERO, Duration.ofDays(3650));
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

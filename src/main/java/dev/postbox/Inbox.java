package dev.postbox;

import dev.postbox.internal.ProducerOptions;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.TableWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;

/**
 * The consumer half of effect-once delivery: records that a consumer has handled an event, in the
 * same transaction as the event's side effects, so a redelivered event is recognised and skipped.
 *
 * <p>Thread-safe and immutable once built. {@link #claim} runs only on the connection it is given
 * and never commits, rolls back or closes it. A {@link Dispatcher} built with {@code inbox(...)}
 * deletes rows older than the retention. Guide: {@code docs/consumers.md}.
 */
public final class Inbox {
  private final Duration retention;
  final TableWriter writer;

  private Inbox(Builder b) {
    this.retention = b.retention;
    this.writer =
        new TableWriter(
            b.options,
            InboxRows.INSERTED,
            InboxRows.TYPES,
            InboxRows.KEY,
            InboxRows.TUPLE,
            TableWriter.autoCommitRefusal(
                "the claim would commit apart from the handler's side effects", "claim"));
  }

  /** {@return a new builder with the defaults: table {@code postbox_inbox}, retention 7 days} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Records that {@code consumer} handles {@code eventId}, in the caller's transaction. Returns
   * true the first time — apply the side effects in the same transaction, then commit, then
   * acknowledge the broker — and false for a duplicate, without failing the transaction on any
   * database. A concurrent claim of the same event waits for this transaction and then returns
   * false (or true if this one rolls back).
   *
   * @param connection the caller's connection, in the transaction of the side effects
   * @param consumer the consuming component, same rules as a topic (1-200 letters, digits, '.',
   *     '_', '-', starting with a letter or digit)
   * @param eventId the event id: 1-128 characters, no control characters, no leading or trailing
   *     whitespace
   * @return true if this is the first claim of the event by the consumer, false for a duplicate
   * @throws InvalidValueException if the consumer or the event id breaks the rules
   * @throws PostboxException if the connection is in auto-commit mode (unless allowed) or the
   *     INSERT fails
   */
  public boolean claim(Connection connection, String consumer, String eventId) {
    Object[] row = {Rules.name("consumer", consumer), Rules.eventId("eventId", eventId)};
    return writer.insert(
            connection,
            List.<Object[]>of(row),
            true,
            "claiming " + eventId + " for " + consumer + " in " + table())
        == 1;
  }

  /** {@return the inbox table's name as configured, {@code name} or {@code schema.name}} */
  public String table() {
    return writer.table();
  }

  /** {@return how long rows are kept before a dispatcher's cleanup deletes them} */
  public Duration retention() {
    return retention;
  }

  /** Configures an {@link Inbox}; each option is validated as it is set. Not thread-safe. */
  public static final class Builder {
    private ProducerOptions options = ProducerOptions.of("postbox_inbox", "");
    private Duration retention = Duration.ofDays(7);

    private Builder() {}

    /**
     * The inbox table, {@code name} or {@code schema.name}; default {@code postbox_inbox}.
     *
     * @param table the table name; each part 1-63 letters, digits or '_', not starting with a digit
     * @return this builder
     * @throws InvalidValueException if the name breaks the rules
     */
    public Builder table(String table) {
      options = options.table(table);
      return this;
    }

    /**
     * How long a handled event is remembered, 1 minute to 3650 days; default 7 days. Must exceed
     * the longest time the broker may redeliver an event.
     *
     * @param retention how long a claim is kept
     * @return this builder
     * @throws InvalidValueException if the retention is null or out of range
     */
    public Builder retention(Duration retention) {
      this.retention =
          Require.between("retention", retention, Duration.ofMinutes(1), Duration.ofDays(3650));
      return this;
    }

    /**
     * Accepts auto-commit connections (the claim then commits on its own); default false.
     *
     * @param allow true to accept connections in auto-commit mode
     * @return this builder
     */
    public Builder allowAutoCommit(boolean allow) {
      options = options.allowAutoCommit(allow);
      return this;
    }

    /** {@return an inbox with these options; later changes to this builder change nothing built} */
    public Inbox build() {
      return new Inbox(this);
    }
  }
}

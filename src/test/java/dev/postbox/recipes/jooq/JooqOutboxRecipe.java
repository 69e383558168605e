package dev.postbox.recipes.jooq;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.postbox.Message;
import dev.postbox.Outbox;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The jOOQ recipe: an order row written with jOOQ and its {@code order.placed} event added to the
 * outbox in the same {@code dsl.transaction(...)}, so both commit or neither does.
 *
 * <p>Thread-safe (a {@link DSLContext} on a {@code DataSource} and an {@link Outbox} are). Each
 * {@link #place} runs one transaction on one pooled connection; the outbox row goes through that
 * connection via {@link DSLContext#connection}, never through a connection of its own.
 */
public final class JooqOutboxRecipe {
  static final Table<?> ORDERS = table(name("recipe_jooq_orders"));
  static final Field<Long> ID = field(name("id"), SQLDataType.BIGINT);
  static final Field<Integer> AMOUNT = field(name("amount"), SQLDataType.INTEGER);

  private final DSLContext dsl;
  private final Outbox outbox;

  /**
   * A recipe writing through {@code dsl}.
   *
   * @param dsl a context on a {@code DataSource}, e.g. {@code DSL.using(dataSource, dialect)}
   * @param outbox the outbox the events are added to
   */
  public JooqOutboxRecipe(DSLContext dsl, Outbox outbox) {
    this.dsl = dsl;
    this.outbox = outbox;
  }

  /**
   * Inserts the order and adds its event in one transaction, committed when this returns.
   *
   * @param orderId the order's id, also the event's key
   * @param amount the order's amount
   * @return the event's id
   */
  public String place(long orderId, int amount) {
    return place(orderId, amount, () -> {});
  }

  /** As {@link #place(long, int)}, running {@code beforeCommit} last in the transaction. */
  String place(long orderId, int amount, Runnable beforeCommit) {
    Message event =
        Message.of("order.placed", "{\"orderId\":" + orderId + ",\"amount\":" + amount + "}")
            .eventId("order-" + orderId + ":placed")
            .key(Long.toString(orderId));
    dsl.transaction(
        cfg -> {
          // DSL.using(cfg), not dsl: only the configuration handed in runs on the transaction's
          // connection; dsl would borrow another connection and commit on its own
          DSLContext tx = DSL.using(cfg);
          tx.insertInto(ORDERS).columns(ID, AMOUNT).values(orderId, amount).execute();
          // the transaction's own JDBC connection (auto-commit off), so the outbox INSERT
          // commits or rolls back with the order
          tx.connection(c -> outbox.add(c, event));
          beforeCommit.run(); // the tests' seam: throwing here rolls back both writes
        });
    return event.eventId();
  }
}

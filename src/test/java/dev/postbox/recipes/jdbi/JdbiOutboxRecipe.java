package dev.postbox.recipes.jdbi;

import dev.postbox.Message;
import dev.postbox.Outbox;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The JDBI recipe: an order row written through a {@link Handle} and its {@code order.placed} event
 * added to the outbox in the same {@code jdbi.useTransaction(...)}, so both commit or neither does.
 *
 * <p>Thread-safe ({@link Jdbi} and {@link Outbox} are; a handle is used only inside its
 * transaction). Each {@link #place} runs one transaction on one pooled connection, the handle's,
 * which the outbox writes through.
 */
public final class JdbiOutboxRecipe {
  private final Jdbi jdbi;
  private final Outbox outbox;

  /**
   * A recipe writing through {@code jdbi}.
   *
   * @param jdbi e.g. {@code Jdbi.create(dataSource)}
   * @param outbox the outbox the events are added to
   */
  public JdbiOutboxRecipe(Jdbi jdbi, Outbox outbox) {
    this.jdbi = jdbi;
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
    jdbi.useTransaction(
        handle -> {
          handle.execute(
              "INSERT INTO recipe_jdbi_orders (id, amount) VALUES (?, ?)", orderId, amount);
          // the handle's own JDBC connection, auto-commit off while the transaction is open:
          // the outbox INSERT commits or rolls back with the order
          outbox.add(handle.getConnection(), event);
          beforeCommit.run(); // the tests' seam: throwing here rolls back both writes
        });
    return event.eventId();
  }
}

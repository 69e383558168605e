package dev.postbox.recipes.jooq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postbox.DatabaseTest;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.Outbox;
import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.time.Duration;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link JooqOutboxRecipe}: the order row and its event commit together, and an exception in the
 * jOOQ transaction leaves neither, so nothing is delivered. Subclasses say which database.
 */
public abstract class JooqOutboxContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final Outbox outbox = Outbox.builder().build();
  private RecordingTransport transport;
  private JooqOutboxRecipe recipe;

  /** jOOQ's dialect for this database. */
  protected abstract SQLDialect dialect();

  @BeforeEach
  void ordersTable() {
    Sql.update(ds, "DROP TABLE IF EXISTS recipe_jooq_orders");
    Sql.update(
        ds,
        "CREATE TABLE recipe_jooq_orders (id BIGINT NOT NULL PRIMARY KEY, amount INTEGER NOT NULL)");
    transport = new RecordingTransport();
    recipe = new JooqOutboxRecipe(DSL.using(ds, dialect()), outbox);
  }

  @AfterEach
  void dropOrdersTable() {
    Sql.update(ds, "DROP TABLE IF EXISTS recipe_jooq_orders");
  }

  @Test
  void committedOrderIsStoredAndItsEventDeliveredOnce() {
    String eventId = recipe.place(1, 30);

    assertEquals("order-1:placed", eventId);
    assertEquals(1, orders());
    assertEquals(30, amountOf(1));
    assertEquals(
        1, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE event_id = ?", eventId));
    startDispatcher();
    Await.until(
        WAIT, "the order's event", () -> transport.count(eventId) == 1 && outboxRows() == 0);
    assertEquals(1, transport.total.get());
    Envelope e = transport.envelopes.peek();
    assertEquals("order.placed", e.topic());
    assertEquals("1", e.key());
    assertEquals("{\"orderId\":1,\"amount\":30}", e.payload());
  }

  @Test
  void exceptionInTheTransactionRollsBackOrderAndEvent() {
    startDispatcher();
    RuntimeException outOfStock = new IllegalStateException("out of stock");

    RuntimeException thrown =
        assertThrows(
            RuntimeException.class,
            () ->
                recipe.place(
                    1,
                    30,
                    () -> {
                      throw outOfStock;
                    }));

    assertSame(outOfStock, thrown); // jOOQ rethrows a RuntimeException as it is, after rollback
    assertEquals(0, orders());
    assertEquals(0, outboxRows());
    // a barrier: once the next committed event is delivered, the dispatcher has had its chance
    String barrier = recipe.place(2, 40);
    Await.until(
        WAIT, "the barrier's event", () -> transport.count(barrier) == 1 && outboxRows() == 0);
    assertEquals(0, transport.count("order-1:placed"));
    assertEquals(1, transport.total.get());
    assertEquals(1, orders());
    assertEquals(40, amountOf(2));
  }

  private void startDispatcher() {
    started(
        Dispatcher.builder(ds)
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20))
            .shutdownTimeout(Duration.ofSeconds(10)));
  }

  private long orders() {
    return Sql.count(ds, "SELECT COUNT(*) FROM recipe_jooq_orders");
  }

  private long amountOf(long orderId) {
    return Sql.count(ds, "SELECT amount FROM recipe_jooq_orders WHERE id = ?", orderId);
  }

  private long outboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }
}

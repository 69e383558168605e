package dev.postbox.recipes;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The atomicity contract every ORM recipe proves: an order row and its {@code order.placed} event
 * commit together and the event is delivered once; an exception in the transaction leaves neither,
 * so nothing is delivered. A subclass names its orders table and runs its recipe.
 */
public abstract class OrderRecipeContractTest extends DatabaseTest {
  protected static final Duration WAIT = Duration.ofSeconds(30);

  protected final Outbox outbox = Outbox.builder().build();
  protected RecordingTransport transport;

  /** The recipe's orders table: {@code id BIGINT} primary key, {@code amount INTEGER}. */
  protected abstract String ordersTable();

  /** Builds the recipe on {@code ds} and {@link #outbox}; called before each test. */
  protected abstract void newRecipe();

  /**
   * Places an order through the recipe, running {@code beforeCommit} last in its transaction.
   *
   * @return the event id
   */
  protected abstract String place(long orderId, int amount, Runnable beforeCommit);

  @BeforeEach
  void createOrdersTable() {
    Sql.update(ds, "DROP TABLE IF EXISTS " + ordersTable());
    Sql.update(
        ds,
        "CREATE TABLE "
            + ordersTable()
            + " (id BIGINT NOT NULL PRIMARY KEY, amount INTEGER NOT NULL)");
    transport = new RecordingTransport();
    newRecipe();
  }

  @AfterEach
  void dropOrdersTable() {
    Sql.update(ds, "DROP TABLE IF EXISTS " + ordersTable());
  }

  @Test
  void committedOrderIsStoredAndItsEventDeliveredOnce() {
    String eventId = place(1, 30, () -> {});

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
                place(
                    1,
                    30,
                    () -> {
                      throw outOfStock;
                    }));

    assertSame(outOfStock, thrown); // each library rolls back and rethrows it as it is
    assertEquals(0, orders());
    assertEquals(0, outboxRows());
    assertBarrierDeliveredAlone(2, "order-1:placed");
    assertEquals(1, orders());
    assertEquals(40, amountOf(2));
  }

  /**
   * Places order {@code orderId} (amount 40) as a barrier: once its event is delivered the
   * dispatcher has had its chance, and {@code eventId} must not have been delivered.
   */
  protected void assertBarrierDeliveredAlone(long orderId, String eventId) {
    String barrier = place(orderId, 40, () -> {});
    Await.until(
        WAIT, "the barrier's event", () -> transport.count(barrier) == 1 && outboxRows() == 0);
    assertEquals(0, transport.count(eventId));
    assertEquals(1, transport.total.get());
  }

  protected void startDispatcher() {
    started(
        Dispatcher.builder(ds)
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20))
            .shutdownTimeout(Duration.ofSeconds(10)));
  }

  protected long orders() {
    return Sql.count(ds, "SELECT COUNT(*) FROM " + ordersTable());
  }

  protected long amountOf(long orderId) {
    return Sql.count(ds, "SELECT amount FROM " + ordersTable() + " WHERE id = ?", orderId);
  }

  protected long outboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }
}

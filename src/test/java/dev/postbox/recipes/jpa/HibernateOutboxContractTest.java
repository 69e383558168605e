package dev.postbox.recipes.jpa;

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
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceConfiguration;
import jakarta.persistence.RollbackException;
import java.time.Duration;
import org.hibernate.cfg.JdbcSettings;
import org.hibernate.exception.ConstraintViolationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HibernateOutboxRecipe}: the order row and its event commit together, and an exception in
 * the Hibernate transaction leaves neither, so nothing is delivered. Subclasses say which database.
 */
public abstract class HibernateOutboxContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final Outbox outbox = Outbox.builder().build();
  private RecordingTransport transport;
  private HibernateOutboxRecipe recipe;
  private EntityManagerFactory entityManagers;

  @BeforeAll
  void entityManagerFactory() {
    // JPA 3.2's programmatic bootstrap, no persistence.xml; Hibernate detects the dialect
    entityManagers =
        new PersistenceConfiguration("postbox-recipes")
            .managedClass(RecipeOrder.class)
            .property(JdbcSettings.JAKARTA_NON_JTA_DATASOURCE, ds)
            .createEntityManagerFactory();
  }

  @AfterAll
  void closeEntityManagerFactory() {
    entityManagers.close();
  }

  @BeforeEach
  void ordersTable() {
    Sql.update(ds, "DROP TABLE IF EXISTS recipe_jpa_orders");
    Sql.update(
        ds,
        "CREATE TABLE recipe_jpa_orders (id BIGINT NOT NULL PRIMARY KEY, amount INTEGER NOT NULL)");
    transport = new RecordingTransport();
    recipe = new HibernateOutboxRecipe(entityManagers, outbox);
  }

  @AfterEach
  void dropOrdersTable() {
    Sql.update(ds, "DROP TABLE IF EXISTS recipe_jpa_orders");
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

    assertSame(outOfStock, thrown); // inTransaction rolls back and rethrows it as it is
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

  @Test
  void failingFlushAtCommitRollsBackTheEventWrittenBeforeIt() {
    startDispatcher();
    Sql.update(ds, "INSERT INTO recipe_jpa_orders (id, amount) VALUES (7, 1)");

    // persist() queues the INSERT; doWork() writes the outbox row; the commit's flush then
    // hits the duplicate key, so the transaction rolls back with the outbox row in it
    RollbackException thrown = assertThrows(RollbackException.class, () -> recipe.place(7, 30));

    // failed in the commit, after doWork had returned: the order's INSERT ran last
    assertEquals(ConstraintViolationException.class, thrown.getCause().getClass());
    assertEquals(0, outboxRows());
    assertEquals(1, orders());
    assertEquals(1, amountOf(7));
    String barrier = recipe.place(8, 40);
    Await.until(
        WAIT, "the barrier's event", () -> transport.count(barrier) == 1 && outboxRows() == 0);
    assertEquals(0, transport.count("order-7:placed"));
    assertEquals(1, transport.total.get());
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
    return Sql.count(ds, "SELECT COUNT(*) FROM recipe_jpa_orders");
  }

  private long amountOf(long orderId) {
    return Sql.count(ds, "SELECT amount FROM recipe_jpa_orders WHERE id = ?", orderId);
  }

  private long outboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }
}

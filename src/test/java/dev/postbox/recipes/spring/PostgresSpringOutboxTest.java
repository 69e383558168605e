package dev.postbox.recipes.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.DatabaseTest;
import dev.postbox.Dispatcher;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.PostboxException;
import dev.postbox.Transport;
import dev.postbox.testing.AutoCommitAdvice;
import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import dev.postbox.testing.Threads;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The Spring recipe on PostgreSQL, in a real application context: the order and its event commit or
 * roll back together; the after-commit wake-up, not the 1-minute poll, delivers; the context's
 * refresh starts the dispatcher and its close stops it.
 */
class PostgresSpringOutboxTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(10); // far below the poll interval

  private RecordingTransport transport;
  private AnnotationConfigApplicationContext context;
  private SpringOrderService service;
  private Dispatcher dispatcher;
  private Outbox outbox;

  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }

  @BeforeEach
  void ordersTableAndContext() {
    Sql.update(ds, "DROP TABLE IF EXISTS recipe_spring_orders");
    Sql.update(
        ds,
        "CREATE TABLE recipe_spring_orders (id BIGINT NOT NULL PRIMARY KEY, amount INTEGER NOT NULL)");
    transport = new RecordingTransport();
    context = new AnnotationConfigApplicationContext();
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("test", Map.of("postbox.poll-interval", "PT1M")));
    // the test's pool outlives the context: no inferred close() at the context's close
    context.registerBean(DataSource.class, () -> ds, bd -> bd.setDestroyMethodName(""));
    context.registerBean(Transport.class, () -> transport);
    context.register(SpringOutboxConfig.class);
    context.refresh();
    service = context.getBean(SpringOrderService.class);
    dispatcher = context.getBean(Dispatcher.class);
    outbox = context.getBean(Outbox.class);
    awaitClaimLoopWaitingOutThePollInterval();
  }

  @AfterEach
  void closeContextAndDropOrdersTable() {
    context.close();
    Sql.update(ds, "DROP TABLE IF EXISTS recipe_spring_orders");
  }

  @Test
  void commitDeliversTheEventOnceThroughTheWakeUp() {
    String eventId = service.place(1, 30, () -> {});

    assertEquals("order-1:placed", eventId);
    // the claim loop waits a minute after its first empty claim: only the wake-up delivers in 10 s
    Await.until(
        WAIT, "the order's event", () -> transport.count(eventId) == 1 && outboxRows() == 0);
    assertEquals(1, transport.total.get());
    assertEquals("{\"orderId\":1,\"amount\":30}", transport.envelopes.peek().payload());
    assertEquals(1, orders());
  }

  @Test
  void exceptionAfterTheAddRollsBackOrderAndEvent() {
    RuntimeException outOfStock = new IllegalStateException("out of stock");

    RuntimeException thrown =
        assertThrows(
            RuntimeException.class,
            () ->
                service.place(
                    1,
                    30,
                    () -> {
                      throw outOfStock;
                    }));

    assertSame(outOfStock, thrown);
    assertEquals(0, orders());
    assertEquals(0, outboxRows());
    // a barrier: once the next committed event is delivered, the dispatcher has had its chance
    String barrier = service.place(2, 40, () -> {});
    Await.until(WAIT, "the barrier's event", () -> transport.count(barrier) == 1);
    assertEquals(0, transport.count("order-1:placed"));
    assertEquals(1, transport.total.get());
    assertEquals(1, orders());
  }

  @Test
  void outsideATransactionTheOutboxRefusesTheAutoCommitConnection() {
    // the same code without its proxy: no transaction, so each statement commits on its own
    SpringOrderService unproxied =
        new SpringOrderService(context.getBean(JdbcTemplate.class), ds, outbox, dispatcher);

    PostboxException refused =
        assertThrows(PostboxException.class, () -> unproxied.place(1, 30, () -> {}));

    AutoCommitAdvice.assertGiven(refused.getMessage()); // names this very pitfall
    assertEquals(1, orders()); // the order row committed alone: why the outbox refuses
    assertEquals(0, outboxRows());
  }

  @Test
  void refreshStartsTheDispatcherAndCloseStopsIt() {
    DispatcherLifecycle lifecycle = context.getBean(DispatcherLifecycle.class);
    assertTrue(lifecycle.isRunning());
    String delivered = service.place(1, 30, () -> {});
    Await.until(WAIT, "the order's event", () -> transport.count(delivered) == 1);

    context.close();

    assertFalse(lifecycle.isRunning());
    String prefix = dispatcher.instanceId() + "-";
    Await.until(WAIT, "the dispatcher's threads to end", () -> Threads.named(prefix).isEmpty());
    assertEquals(List.of(), Threads.named(prefix));
    IllegalStateException restart = assertThrows(IllegalStateException.class, dispatcher::start);
    assertTrue(restart.getMessage().endsWith("dispatcher already closed"));
    Sql.commit(ds, c -> outbox.add(c, Message.of("t", "{}").eventId("late")));
    dispatcher.wakeUp(); // nothing left to wake: no thread claims the late message
    assertEquals(1, outboxRows());
    assertEquals(1, transport.total.get());
  }

  /**
   * Waits until the claim loop (a platform thread on PostgreSQL) has made its first, empty claim
   * and waits: after it the next poll is a minute away.
   */
  private void awaitClaimLoopWaitingOutThePollInterval() {
    String claims = dispatcher.instanceId() + "-postbox_outbox-claims";
    Await.until(
        WAIT,
        claims + " to wait",
        () ->
            Thread.getAllStackTraces().keySet().stream()
                .anyMatch(
                    t -> t.getName().equals(claims) && t.getState() == Thread.State.TIMED_WAITING));
  }

  private long orders() {
    return Sql.count(ds, "SELECT COUNT(*) FROM recipe_spring_orders");
  }

  private long outboxRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }
}

package dev.postbox.recipes.spring;

import dev.postbox.Dispatcher;
import dev.postbox.Message;
import dev.postbox.Outbox;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The Spring recipe's service: an order row written with {@link JdbcTemplate} and its {@code
 * order.placed} event added to the outbox in the same {@code @Transactional} method, so both commit
 * or neither does; after the commit it wakes the dispatcher up.
 *
 * <p>Thread-safe. Must be called through its Spring proxy: the transaction manager binds one pooled
 * connection to the calling thread, with auto-commit off, and both {@link JdbcTemplate} and {@link
 * DataSourceUtils#getConnection} return that connection as long as they use the same {@link
 * DataSource} as the transaction manager.
 */
@Transactional
public class SpringOrderService {
  private final JdbcTemplate jdbc;
  private final DataSource dataSource;
  private final Outbox outbox;
  private final Dispatcher dispatcher;

  public SpringOrderService(
      JdbcTemplate jdbc, DataSource dataSource, Outbox outbox, Dispatcher dispatcher) {
    this.jdbc = jdbc;
    this.dataSource = dataSource;
    this.outbox = outbox;
    this.dispatcher = dispatcher;
  }

  /**
   * Inserts the order and adds its event; both commit when this returns.
   *
   * @param orderId the order's id, also the event's key
   * @param amount the order's amount
   * @param check a later step of the same transaction (e.g. a stock check); if it throws, the order
   *     and the event are rolled back and the exception reaches the caller
   * @return the event's id
   */
  public String place(long orderId, int amount, Runnable check) {
    jdbc.update("INSERT INTO recipe_spring_orders (id, amount) VALUES (?, ?)", orderId, amount);
    String eventId = "order-" + orderId + ":placed";
    add(
        Message.of("order.placed", "{\"orderId\":" + orderId + ",\"amount\":" + amount + "}")
            .eventId(eventId)
            .key(Long.toString(orderId)));
    check.run();
    return eventId;
  }

  private void add(Message message) {
    // the transaction's connection; outside a transaction a fresh auto-commit one, which the
    // outbox refuses (PostboxException) rather than commit the message on its own
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      outbox.add(connection, message);
    } finally {
      // inside a transaction only a reference count: the transaction manager returns the
      // connection after commit or rollback; outside one, this returns it to the pool
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
    // without this the message waits for the dispatcher's next poll; afterCommit never runs
    // after a rollback, so a rolled-back message wakes nothing
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCommit() {
            dispatcher.wakeUp();
          }
        });
  }
}

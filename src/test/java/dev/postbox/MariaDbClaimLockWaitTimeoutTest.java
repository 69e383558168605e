package dev.postbox;

import static dev.postbox.testing.JdbcProxy.invoke;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.JdbcProxy;
import dev.postbox.testing.RecordingListener;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's pipelined claim sends its lease UPDATE and its COMMIT in one batch, and the driver runs
 * the COMMIT even when the UPDATE fails: a lock wait timeout (1205), which rolls back only its
 * statement, leaves the COMMIT to commit the finish of the delivered rows the claim carried. The
 * claim is retried with the same finish, which then finds those rows gone: they are no lost leases.
 */
class MariaDbClaimLockWaitTimeoutTest extends OutboxSuite {
  /** Waits for the row the test holds locked, for a second, then fails with 1205. */
  private static final String BLOCKED_UPDATE =
      "SET STATEMENT innodb_lock_wait_timeout = 1 FOR"
          + " UPDATE postbox_test_gate SET n = n + 1 WHERE id = 1";

  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }

  @Test
  void aLockWaitTimeoutInTheLastBatchOfAClaimCarryingFinishedRowsReportsNoLeaseLost()
      throws Exception {
    // regression: the retried claim's finish matched none of the rows the first try had deleted,
    // and reported each as a lost lease
    Sql.update(ds, "DROP TABLE IF EXISTS postbox_test_gate");
    Sql.update(ds, "CREATE TABLE postbox_test_gate (id INT PRIMARY KEY, n INT NOT NULL)");
    Sql.update(ds, "INSERT INTO postbox_test_gate VALUES (1, 0)");
    AtomicInteger timedOut = new AtomicInteger();
    RecordingTransport transport = new RecordingTransport();
    RecordingListener listener = new RecordingListener();
    try (Connection gate = ds.getConnection()) {
      gate.setAutoCommit(false);
      try (Statement lock = gate.createStatement()) { // held to the end
        lock.executeUpdate("UPDATE postbox_test_gate SET n = n + 1 WHERE id = 1");
      }
      // each send commits the next message before it returns: the claim that carries a
      // delivered row's finish finds the next row due, whatever the machine's timing
      AtomicInteger added = new AtomicInteger(); // the last message added, once each
      Transport chaining =
          envelope -> {
            int i = Integer.parseInt(envelope.eventId().substring(2));
            if (i + 1 < 20 && added.compareAndSet(i, i + 1)) {
              add(Message.of("t", "{}").eventId("m-" + (i + 1)));
            }
            transport.send(envelope);
          };
      Dispatcher d =
          started(dispatcherOn(leaseTimingOut(ds, timedOut), chaining).listener(listener));
      add(Message.of("t", "{}").eventId("m-0"));
      d.wakeUp();
      Await.until(WAIT, "m-19 delivered", () -> transport.count("m-19") == 1);
      Await.until(WAIT, "every delivered row deleted", () -> rows() == 0);
      d.close(); // its listener calls are all made
      gate.rollback();
    } finally {
      Sql.update(ds, "DROP TABLE IF EXISTS postbox_test_gate");
    }

    assertEquals(1, timedOut.get(), "claims whose lease UPDATE timed out");
    assertTrue(
        listener.retried.stream().anyMatch(e -> e.getErrorCode() == 1205),
        "the claim retried after 1205: " + listener.retried);
    assertEquals(0, listener.leaseLost.get(), "leases reported lost");
    assertEquals(20, transport.deliveries.size(), "distinct delivered");
    assertEquals(20, transport.total.get(), "deliveries");
    for (int i = 0; i < 20; i++) {
      assertEquals(1, listener.count("delivered", "m-" + i), "delivered calls of m-" + i);
    }
  }

  /**
   * {@code target}, whose first claim that carries finished rows (a batch with the finishing DELETE
   * on its connection) and leases rows has the lease UPDATE of its last batch replaced by {@link
   * #BLOCKED_UPDATE}: that statement fails with 1205 on the server and the COMMIT after it runs.
   */
  private static DataSource leaseTimingOut(DataSource target, AtomicInteger timedOut) {
    return JdbcProxy.wrappingConnections(
        target,
        real -> {
          boolean[] carrying = {false};
          return JdbcProxy.connection(
              real,
              (method, args, result) ->
                  method.equals("createStatement")
                      ? statement((Statement) result, carrying, timedOut)
                      : result);
        });
  }

  private static Statement statement(Statement real, boolean[] carrying, AtomicInteger timedOut) {
    List<String> batch = new ArrayList<>();
    return JdbcProxy.of(
        Statement.class,
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "addBatch" -> batch.add((String) args[0]);
            case "executeBatch" -> {
              carrying[0] |=
                  batch.stream().anyMatch(s -> s.startsWith("DELETE FROM postbox_outbox"));
              boolean leases = batch.stream().anyMatch(s -> s.startsWith("UPDATE postbox_outbox"));
              if (leases && carrying[0] && timedOut.compareAndSet(0, 1)) {
                real.clearBatch();
                for (String s : batch) {
                  real.addBatch(s.startsWith("UPDATE postbox_outbox") ? BLOCKED_UPDATE : s);
                }
              }
              batch.clear();
            }
            default -> {}
          }
          return invoke(real, method, args);
        });
  }
}

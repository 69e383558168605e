package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.JdbcProxy;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import java.sql.BatchUpdateException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A deadlock in the last batch of MariaDB's pipelined claim rolls back the whole transaction, and
 * the server then runs the batch's remaining statements in auto-commit. Injected here as the server
 * does it: the batch's first statement is replaced by a ROLLBACK and fails with error 1213, the
 * rest run. Nothing of the claim may stay leased: before the fix the runs' lease, sent behind the
 * heads' in one batch, committed on its own, and its rows waited a whole lease, their key behind
 * them.
 */
class MariaDbDeadlockedLeaseTest extends OutboxSuite {
  private final AtomicBoolean injected = new AtomicBoolean();
  private final AtomicLong leasedAfterInjection = new AtomicLong(-1);

  @Override
  protected TestDatabase open() {
    return TestDatabase.mariadb();
  }

  @Test
  void aDeadlockInTheLastBatchOfAClaimWithRunsLeavesNoRowLeased() throws Exception {
    for (int i = 0; i < 5; i++) {
      add(Message.of("t", "{}").eventId("k-" + i).key("k")); // one head and four rows behind it
    }
    RecordingTransport sent = new RecordingTransport();
    Dispatcher d = started(dispatcherOn(deadlockingLastBatch(ds), sent).claimsInFlight(1));
    assertTrue(d.awaitIdle(WAIT));

    assertTrue(injected.get(), "a claim's last batch deadlocked");
    assertEquals(0, leasedAfterInjection.get(), "rows leased right after the deadlocked claim");
    for (int i = 0; i < 5; i++) {
      assertEquals(1, sent.count("k-" + i), "k-" + i + " delivered");
    }
    List<String> order = sent.envelopes.stream().map(Envelope::eventId).toList();
    assertEquals(List.of("k-0", "k-1", "k-2", "k-3", "k-4"), order, "in key order");
  }

  /** Claim connections whose first batch ending in a COMMIT deadlocks at its first statement. */
  private DataSource deadlockingLastBatch(DataSource target) {
    return JdbcProxy.wrappingConnections(
        target,
        c ->
            Thread.currentThread().getName().contains("-claims")
                ? JdbcProxy.connection(
                    c,
                    (method, args, result) ->
                        result instanceof Statement s && !(s instanceof java.sql.PreparedStatement)
                            ? deadlocking(s)
                            : result)
                : c);
  }

  private Statement deadlocking(Statement real) {
    List<String> batch = new ArrayList<>();
    return JdbcProxy.of(
        Statement.class,
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "addBatch" -> {
              batch.add((String) args[0]);
              return null;
            }
            case "clearBatch" -> {
              batch.clear();
              return null;
            }
            case "executeBatch" -> {
              List<String> statements = List.copyOf(batch);
              batch.clear();
              boolean last = statements.getLast().equals("COMMIT");
              if (last
                  && statements.getFirst().startsWith("UPDATE")
                  && injected.compareAndSet(false, true)) {
                real.execute("ROLLBACK"); // what the deadlock does to the transaction
                for (String rest : statements.subList(1, statements.size())) {
                  real.execute(rest); // the server runs the rest of the batch
                }
                leasedAfterInjection.set(
                    Sql.count(
                        ds,
                        "SELECT COUNT(*) FROM postbox_outbox"
                            + " WHERE leased_by IS NOT NULL AND state = 0"));
                throw new BatchUpdateException(
                    "Deadlock found when trying to get lock; try restarting transaction (injected)",
                    "40001",
                    1213,
                    new int[0]);
              }
              for (String statement : statements) {
                real.addBatch(statement);
              }
              return real.executeBatch();
            }
            default -> {
              return JdbcProxy.invoke(real, method, args);
            }
          }
        });
  }
}

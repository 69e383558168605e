package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.testing.Await;
import dev.postbox.testing.JdbcProxy;
import dev.postbox.testing.RecordingListener;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.TestDatabase;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;

/**
 * H2 in server mode, whose client reports a broken connection, and a server it cannot reach, as
 * error 90067 (CONNECTION_BROKEN_1): a dispatcher connected through H2's TCP server keeps an
 * outcome while the server is away and writes it once it is back.
 */
class H2ServerConnectionLossTest extends OutboxSuite {

  @Override
  protected TestDatabase open() {
    return TestDatabase.h2();
  }

  @Test
  void anOutcomeRecordedWhileTheServerIsAwayIsWrittenOnceItIsBackNotDropped() throws Exception {
    // regression: the writer took 90067 for an error retrying cannot cure and dropped the
    // outcome: the row was delivered again once its lease had run out
    AtomicReference<Server> server =
        new AtomicReference<>(Server.createTcpServer("-tcpPort", "0").start());
    int port = server.get().getPort();
    AtomicInteger writerFailures = new AtomicInteger();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            super.send(envelope);
            if (total.get() == 1) {
              server.get().stop(); // sent: the outcome is recorded while the server is away
            }
          }
        };
    RecordingListener listener = new RecordingListener();
    try {
      Dispatcher d =
          started(
              dispatcherOn(remote(port, writerFailures), transport)
                  .lease(Duration.ofSeconds(2)) // a dropped outcome's row is sent again after it
                  .listener(listener));
      add(Message.of("t", "{}").eventId("m"));
      Await.until(WAIT, "the writer failing to connect", () -> writerFailures.get() > 0);
      server.set(Server.createTcpServer("-tcpPort", Integer.toString(port)).start());
      Await.until(WAIT, "the row finished", () -> rows() == 0);
      d.close();
    } finally {
      server.get().stop();
    }

    assertEquals(1, transport.total.get(), "sends");
    assertEquals(1, listener.count("delivered", "m"), "delivered calls");
    assertEquals(0, listener.leaseLost.get(), "leases reported lost");
  }

  /**
   * This test's in-memory database through the TCP server at {@code port}, a new connection each
   * time; counts the outcome writer's failures to connect.
   */
  private DataSource remote(int port, AtomicInteger writerFailures) {
    String url = "jdbc:h2:tcp://localhost:" + port + "/" + db.url().substring("jdbc:h2:".length());
    return JdbcProxy.of(
        DataSource.class,
        (proxy, method, args) ->
            switch (method.getName()) {
              case "getConnection" -> {
                try {
                  yield DriverManager.getConnection(url, db.user(), db.password());
                } catch (SQLException e) {
                  if (Thread.currentThread().getName().endsWith("-completions")) {
                    writerFailures.incrementAndGet();
                  }
                  throw e;
                }
              }
              case "isWrapperFor" -> false;
              case "hashCode" -> System.identityHashCode(proxy);
              case "equals" -> proxy == args[0];
              case "toString" -> url;
              default -> throw new UnsupportedOperationException(method.getName());
            });
  }
}

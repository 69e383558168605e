package dev.postbox.rabbitmq;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Inbox;
import dev.postbox.testing.ChildJvm;
import dev.postbox.testing.ChildProcess;
import dev.postbox.testing.OrderLedger;
import dev.postbox.testing.TestDatabase;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A consumer in its own JVM, for the crash test: consumes {@code args[0]} as inbox consumer {@code
 * args[1]} with prefetch 1, applying the test's side effect (a row in {@code e2e_effects}); after
 * committing the first event it prints {@code COMMITTED <event id>} and blocks before acking, so
 * the test can kill it exactly between commit and ack. A {@link ChildJvm}: the database comes from
 * the environment.
 */
public final class ConsumerProcess {
  static final String READY = "READY";
  static final String COMMITTED = "COMMITTED ";
  private static final ChildJvm JVM = new ChildJvm(ConsumerProcess.class, List.of());

  private ConsumerProcess() {}

  /**
   * Starts this class's {@code main} in a new JVM, consuming {@code queue} as {@code consumer} on
   * {@code db}'s database.
   */
  static ChildProcess start(String queue, String consumer, TestDatabase db) throws IOException {
    return JVM.start(db, queue, consumer);
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    String queue = args[0];
    String name = args[1];
    try (HikariDataSource ds = ChildJvm.database(2)) {
      CountDownLatch never = new CountDownLatch(1);
      RabbitMqConsumer consumer =
          RabbitMqConsumer.builder(RabbitMq.factory(), ds, Inbox.builder().build())
              .queue(queue)
              .name(name)
              .prefetch(1)
              .handler(OrderLedger.effects("process-" + ProcessHandle.current().pid()))
              .beforeAck(
                  envelope -> {
                    out.println(COMMITTED + envelope.eventId());
                    try {
                      never.await(); // killed here: committed, not acked
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  })
              .build()
              .start();
      out.println(READY);
      never.await();
      consumer.close();
    }
  }
}

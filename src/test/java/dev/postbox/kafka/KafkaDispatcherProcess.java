package dev.postbox.kafka;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import dev.postbox.testing.ChildJvm;
import dev.postbox.testing.ChildProcess;
import dev.postbox.testing.EndToEndDispatcher;
import dev.postbox.testing.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/**
 * A dispatcher with the {@link KafkaTransport} in its own JVM ({@link ChildJvm}), so that the test
 * can {@code kill -9} it mid-run: {@code args[0]} is the bootstrap servers, {@code args[1]} the
 * instance id. The dispatcher's settings are the tests' ({@link #settings}). Prints {@code READY}
 * once started; ends when its stdin closes (the test JVM is gone).
 */
public final class KafkaDispatcherProcess {
  static final String READY = "READY";
  private static final ChildJvm JVM =
      new ChildJvm(
          KafkaDispatcherProcess.class, List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));

  private KafkaDispatcherProcess() {}

  /**
   * The dispatcher settings of the end-to-end tests, in process and in this process alike: those of
   * every broker's tests with a 5 s lease.
   */
  static Dispatcher.Builder settings(DataSource ds) {
    return EndToEndDispatcher.settings(ds, Duration.ofSeconds(5));
  }

  /** Starts this class's {@code main} in a new JVM, on {@code db}; it prints {@link #READY}. */
  static ChildProcess start(String bootstrapServers, String instance, TestDatabase db)
      throws IOException {
    return JVM.start(db, bootstrapServers, instance);
  }

  public static void main(String[] args) throws Exception {
    String bootstrapServers = args[0];
    String instance = args[1];
    try (HikariDataSource ds = ChildJvm.database(8);
        KafkaTransport transport = KafkaTransport.builder(bootstrapServers).build()) {
      Dispatcher dispatcher =
          settings(ds).outbox(Outbox.builder().build(), transport).instanceId(instance).build();
      dispatcher.start();
      CountDownLatch parentGone = new CountDownLatch(1);
      ChildJvm.whenParentGone(parentGone::countDown);
      System.out.println(READY);
      System.out.flush();
      parentGone.await();
      dispatcher.close();
    }
  }
}

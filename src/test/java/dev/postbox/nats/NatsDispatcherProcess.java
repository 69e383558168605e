package dev.postbox.nats;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import dev.postbox.testing.ChildJvm;
import dev.postbox.testing.ChildProcess;
import dev.postbox.testing.EndToEndDispatcher;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * A dispatcher with {@link NatsTransport} in its own JVM ({@link ChildJvm}), so the test can {@code
 * kill -9} it mid-run: {@code args} are the NATS url, the subject prefix, the partitions, the
 * instance id and the lease in ms. Prints {@code READY} once started; ends when its stdin closes
 * (the test JVM died), so it is never left behind.
 */
public final class NatsDispatcherProcess {
  static final String READY = "READY";
  private static final ChildJvm JVM =
      new ChildJvm(
          NatsDispatcherProcess.class,
          List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m"));

  private NatsDispatcherProcess() {}

  /**
   * The dispatcher settings of the end-to-end tests and the benchmark, in process and in this
   * process alike: those of every broker's tests with a 2 s lease.
   */
  static Dispatcher.Builder settings(DataSource ds) {
    return EndToEndDispatcher.settings(ds, Duration.ofSeconds(2));
  }

  /** Starts {@link #main} in a new JVM on {@code db}; it prints {@link #READY} once started. */
  static ChildProcess start(
      TestDatabase db, String url, String prefix, int partitions, String instance)
      throws IOException {
    return JVM.start(db, url, prefix, Integer.toString(partitions), instance, "2000");
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    ChildJvm.whenParentGone(() -> Runtime.getRuntime().halt(3));
    try (HikariDataSource ds = ChildJvm.database(4);
        Connection nats = Nats.connect(NatsServer.options(args[0], args[3]))) {
      NatsTransport transport =
          NatsTransport.create(
              nats,
              NatsTransport.keyPartitioned(args[1], Integer.parseInt(args[2])),
              Duration.ofSeconds(2));
      Dispatcher dispatcher =
          settings(ds)
              .outbox(Outbox.builder().build(), transport)
              .instanceId(args[3])
              .lease(Duration.ofMillis(Long.parseLong(args[4])))
              .build();
      dispatcher.start();
      out.println(READY);
      Thread.sleep(Long.MAX_VALUE); // until killed
    }
  }
}

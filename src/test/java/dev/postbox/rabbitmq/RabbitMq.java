package dev.postbox.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ExceptionHandler;
import com.rabbitmq.client.impl.ForgivingExceptionHandler;
import dev.postbox.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The local RabbitMQ for the end-to-end tests: connection settings (POSTBOX_RABBITMQ_URI, default
 * amqp://guest:guest@127.0.0.1:5672), queue setup and teardown, and stopping and starting the
 * broker with {@code rabbitmqctl}. Each operation opens its own short connection, so it works
 * before and after an outage. An unreachable broker fails the test: never skipped.
 */
final class RabbitMq {
  static final String URI = env("POSTBOX_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672");

  /** Connections reset by the outage test are expected: no stack traces for them. */
  private static final ExceptionHandler QUIET =
      new ForgivingExceptionHandler() {
        @Override
        public void handleUnexpectedConnectionDriverException(Connection conn, Throwable e) {}
      };

  private RabbitMq() {}

  interface ChannelWork<T> {
    T run(Channel channel) throws Exception;
  }

  /** A factory with short timeouts; automatic recovery (for consumers) every 500 ms. */
  static ConnectionFactory factory() {
    try {
      ConnectionFactory f = new ConnectionFactory();
      f.setUri(URI);
      f.setConnectionTimeout(5_000);
      f.setHandshakeTimeout(5_000);
      f.setRequestedHeartbeat(10);
      f.setChannelRpcTimeout(10_000);
      f.setAutomaticRecoveryEnabled(true);
      f.setNetworkRecoveryInterval(500L);
      f.setExceptionHandler(QUIET);
      return f;
    } catch (Exception e) {
      throw new IllegalStateException("bad POSTBOX_RABBITMQ_URI " + URI, e);
    }
  }

  static <T> T withChannel(ChannelWork<T> work) {
    ConnectionFactory f = factory();
    f.setAutomaticRecoveryEnabled(false);
    try (Connection c = f.newConnection("postbox-e2e-admin");
        Channel ch = c.createChannel()) {
      return work.run(ch);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(
          "RabbitMQ at " + URI + " failed (start it, see .ci/run): " + e, e);
    }
  }

  /** A durable queue whose rejected messages go to {@code <queue>.dead}. */
  static void declare(String queue) {
    withChannel(
        ch -> {
          ch.queueDeclare(dead(queue), true, false, false, null);
          ch.queueDeclare(
              queue,
              true,
              false,
              false,
              Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", dead(queue)));
          return null;
        });
  }

  static String dead(String queue) {
    return queue + ".dead";
  }

  static void delete(String queue) {
    withChannel(
        ch -> {
          ch.queueDelete(queue);
          ch.queueDelete(dead(queue));
          return null;
        });
  }

  /** Messages ready in {@code queue} (not counting those delivered and unacknowledged). */
  static long ready(String queue) {
    return withChannel(ch -> (long) ch.queueDeclarePassive(queue).getMessageCount());
  }

  /** Ready plus unacknowledged messages in {@code queue}, as the broker counts them. */
  static long messages(String queue) {
    String out = rabbitmqctl("list_queues", "-q", "--no-table-headers", "name", "messages");
    for (String line : out.split("\n")) {
      String[] cols = line.trim().split("\\s+");
      if (cols.length == 2 && cols[0].equals(queue)) {
        return Long.parseLong(cols[1]);
      }
    }
    throw new IllegalStateException("queue " + queue + " not listed by rabbitmqctl: " + out);
  }

  /** Stops the RabbitMQ application (the Erlang node stays up); connections are closed. */
  static void stop() {
    rabbitmqctl("stop_app");
  }

  /** Starts the RabbitMQ application and waits until it accepts connections again. */
  static void start() {
    rabbitmqctl("start_app");
    Await.until(Duration.ofSeconds(60), "RabbitMQ back up", RabbitMq::up);
  }

  static boolean up() {
    ConnectionFactory f = factory();
    f.setAutomaticRecoveryEnabled(false);
    try (Connection c = f.newConnection("postbox-e2e-probe")) {
      return c.isOpen();
    } catch (Exception e) {
      return false;
    }
  }

  static String rabbitmqctl(String... args) {
    String[] command = new String[args.length + 1];
    command[0] = "rabbitmqctl";
    System.arraycopy(args, 0, command, 1, args.length);
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run rabbitmqctl (is RabbitMQ installed?)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}

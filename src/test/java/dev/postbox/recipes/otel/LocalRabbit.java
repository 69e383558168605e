package dev.postbox.recipes.otel;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.Map;

/**
 * The local RabbitMQ for this package's tests (POSTBOX_RABBITMQ_URI, default guest on
 * 127.0.0.1:5672): a connection factory and a queue's setup and teardown. An unreachable broker
 * fails the test: never skipped. (The end-to-end suite's own helper is package-private.)
 */
final class LocalRabbit {
  private LocalRabbit() {}

  private interface ChannelWork {
    void run(Channel channel) throws IOException;
  }

  static ConnectionFactory factory() {
    String uri = System.getenv("POSTBOX_RABBITMQ_URI");
    try {
      ConnectionFactory f = new ConnectionFactory();
      f.setUri(uri == null || uri.isBlank() ? "amqp://guest:guest@127.0.0.1:5672" : uri);
      f.setConnectionTimeout(5_000);
      return f;
    } catch (Exception e) {
      throw new IllegalStateException("bad POSTBOX_RABBITMQ_URI", e);
    }
  }

  /**
   * A durable quorum queue: unlike a classic queue it counts redeliveries in {@code
   * x-delivery-count}, which {@link TracingHandler} reads.
   */
  static void declareQuorum(String queue) {
    admin(ch -> ch.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum")));
  }

  static void delete(String queue) {
    admin(ch -> ch.queueDelete(queue));
  }

  private static void admin(ChannelWork work) {
    try (Connection connection = factory().newConnection("postbox-otel-admin");
        Channel channel = connection.createChannel()) {
      work.run(channel);
    } catch (Exception e) {
      throw new IllegalStateException("RabbitMQ failed (is it running?): " + e, e);
    }
  }
}

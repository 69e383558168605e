package dev.postbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.Envelope;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The Kafka recipe's mapping, checked without a Kafka server (none runs here). */
class KafkaTransportRecipeTest {
  @Test
  void recordCarriesTopicKeyPayloadEventIdAndHeaders() {
    ProducerRecord<String, String> record =
        KafkaTransportRecipe.record(
            new Envelope(
                "order-42:v1",
                "order.placed",
                "order-42",
                "{\"id\":42}",
                Map.of("traceparent", "00-abc-def-01"),
                1,
                null));

    assertEquals("order.placed", record.topic());
    assertEquals("order-42", record.key());
    assertEquals("{\"id\":42}", record.value());
    assertEquals("order-42:v1", header(record, KafkaTransportRecipe.EVENT_ID));
    assertEquals("00-abc-def-01", header(record, "traceparent"));
  }

  private static String header(ProducerRecord<String, String> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}

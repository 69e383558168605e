package dev.postbox.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postbox.BatchSendException;
import dev.postbox.Envelope;
import dev.postbox.RejectedMessageException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link KafkaTransport} on its own against a real broker: what a record carries and where it goes,
 * a record too large refused alone, and sends failing within the producer's timeouts while the
 * broker is away (so the dispatcher sees an outage), then succeeding once it is back.
 */
@Tag("reliability") // a broker of its own: with the broker runs, mvn -B -Preliability verify
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaTransportTest {
  private KafkaBroker broker;
  private String topic;

  @BeforeAll
  void startBroker() {
    broker = KafkaBroker.startNew();
  }

  @AfterAll
  void stopBroker() {
    broker.close();
  }

  @BeforeEach
  void newTopic() {
    topic = "postbox-transport-" + UUID.randomUUID();
    broker.createTopic(topic, KafkaEndToEndFixture.PARTITIONS);
  }

  @Test
  void recordCarriesTheEnvelopeAndItsKeyPicksThePartition() throws Exception {
    List<Envelope> sent =
        List.of(envelope("order-42:v1", "order-42", 10), envelope("order-7:v1", "order-7", 10));
    try (KafkaTransport transport = KafkaTransport.builder(broker.bootstrapServers()).build()) {
      transport.send(sent.get(0));
      transport.sendBatch(List.of(sent.get(1), envelope("order-42:v2", "order-42", 10)));
    }

    List<ConsumerRecord<String, String>> records = readAll(3);
    ConsumerRecord<String, String> first =
        records.stream()
            .filter(r -> header(r, KafkaTransport.EVENT_ID).equals("order-42:v1"))
            .findFirst()
            .orElseThrow();
    assertEquals("order-42", first.key());
    assertEquals("order-42:v1", header(first, KafkaTransport.EVENT_ID));
    assertEquals("2", header(first, KafkaTransport.ATTEMPT));
    assertEquals("00-abc-def-01", header(first, "traceparent"));
    Envelope back = KafkaInboxConsumer.envelope(first, "order-42:v1");
    assertEquals(sent.get(0).payload(), back.payload());
    assertEquals(sent.get(0).headers(), back.headers());
    assertEquals(sent.get(0).attempt(), back.attempt());
    assertEquals(sent.get(0).topic(), back.topic());
    for (ConsumerRecord<String, String> r : records) {
      // the producer's default partitioner: murmur2 of the key bytes
      int expected =
          Utils.toPositive(Utils.murmur2(r.key().getBytes(StandardCharsets.UTF_8)))
              % KafkaEndToEndFixture.PARTITIONS;
      assertEquals(expected, r.partition(), r.key());
    }
    System.out.printf(
        "[kafka transport] records=%d, each in its key's partition%n", records.size());
  }

  @Test
  void recordTooLargeIsRejectedAloneAndTheRestOfItsBatchIsSent() throws Exception {
    Envelope large = envelope("large", "large", KafkaBroker.MAX_MESSAGE_BYTES * 3 / 2);
    try (KafkaTransport transport = KafkaTransport.builder(broker.bootstrapServers()).build()) {
      RejectedMessageException rejected =
          assertThrows(RejectedMessageException.class, () -> transport.send(large));
      assertInstanceOf(RecordTooLargeException.class, rejected.getCause());

      BatchSendException partly =
          assertThrows(
              BatchSendException.class,
              () ->
                  transport.sendBatch(
                      List.of(envelope("a", "a", 10), large, envelope("b", "b", 10))));
      assertEquals(List.of("large"), List.copyOf(partly.failures().keySet()));
      assertInstanceOf(RejectedMessageException.class, partly.failures().get("large"));
    }
    assertEquals(2, broker.records(topic), "the two others written");
    System.out.println("[kafka transport] too large: send rejected=1, batch of 3 failed=1 sent=2");
  }

  @Test
  void sendsFailWithinTheTimeoutsWhileTheBrokerIsAwayAndWorkWhenItIsBack() throws Exception {
    try (KafkaTransport transport =
        KafkaTransport.builder(broker.bootstrapServers())
            .property(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000)
            .property(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000)
            .property(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2_000)
            .build()) {
      transport.send(envelope("before", "k", 10));
      broker.stop();
      long sendMillis;
      long batchMillis;
      try {
        long t0 = System.nanoTime();
        Exception single =
            assertThrows(Exception.class, () -> transport.send(envelope("s", "k", 10)));
        sendMillis = (System.nanoTime() - t0) / 1_000_000;
        assertFalse(single instanceof RejectedMessageException, single.toString());
        long t1 = System.nanoTime();
        Exception batch =
            assertThrows(
                Exception.class,
                () -> transport.sendBatch(List.of(envelope("x", "x", 10), envelope("y", "y", 10))));
        batchMillis = (System.nanoTime() - t1) / 1_000_000;
        // nothing got through: the whole batch fails, as one failed send would (an outage)
        assertFalse(batch instanceof BatchSendException, batch.toString());
        assertFalse(batch instanceof RejectedMessageException, batch.toString());
      } finally {
        broker.start();
      }
      transport.send(envelope("after", "k", 10));
      System.out.printf(
          "[kafka transport] broker away: send failed after %d ms, batch after %d ms; sent again"
              + " after restart%n",
          sendMillis, batchMillis);
    }
    assertEquals(2, broker.records(topic), "before and after");
  }

  private Envelope envelope(String eventId, String key, int payloadBytes) {
    return new Envelope(
        eventId,
        topic,
        key,
        "x".repeat(payloadBytes),
        Map.of("traceparent", "00-abc-def-01"),
        2,
        null);
  }

  private List<ConsumerRecord<String, String>> readAll(int count) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < KafkaEndToEndFixture.PARTITIONS; i++) {
        partitions.add(new TopicPartition(topic, i));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (records.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    assertEquals(count, records.size(), "records read back");
    return records;
  }

  private static String header(ConsumerRecord<String, String> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}

package dev.postbox.recipes.otel;

import static dev.postbox.recipes.otel.SpanAssertions.assertChildOf;
import static dev.postbox.recipes.otel.SpanAssertions.assertLinkedRoot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Backoff;
import dev.postbox.DatabaseTest;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.Inbox;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import dev.postbox.rabbitmq.RabbitMqConsumer;
import dev.postbox.rabbitmq.RabbitMqTransport;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The trace of an order, end to end on PostgreSQL and the local RabbitMQ: a span {@code
 * order.place} around the business transaction, {@link TraceHeaders} writing its context into the
 * message, {@link RabbitMqTransport} carrying it as AMQP headers, and a {@link RabbitMqConsumer}
 * whose {@link TracingHandler} continues it. Each test uses its own quorum queue (it counts
 * redeliveries in {@code x-delivery-count}) and deletes it after.
 */
class RabbitMqTracingTest extends DatabaseTest {
  private static final String TOPIC = "order.placed";
  private static final String PROCESS = TOPIC + " process";
  private static final String CONSUMER = "otel-orders";
  private static final Duration WAIT = Duration.ofMinutes(1);
  private static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("postbox.attempt");
  private static final AttributeKey<Long> REDELIVERIES =
      AttributeKey.longKey("postbox.redeliveries");

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider tracing =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final Tracer tracer = tracing.get("dev.postbox.recipes.otel");
  private final Outbox outbox = Outbox.builder().headers(TraceHeaders.w3c()).build();
  private final Inbox inbox = Inbox.builder().build();
  private final List<Envelope> handled = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> closeAfter = new ArrayList<>();
  private String queue;

  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }

  @BeforeEach
  void freshQueue() {
    exporter.reset();
    handled.clear();
    queue = "postbox-otel-" + UUID.randomUUID();
    LocalRabbit.declareQuorum(queue);
  }

  @AfterEach
  void deleteQueue() throws Exception {
    for (AutoCloseable c : closeAfter.reversed()) {
      c.close();
    }
    closeAfter.clear();
    LocalRabbit.delete(queue);
  }

  @AfterAll
  void closeTracing() {
    tracing.close();
  }

  @Test
  void firstDeliveriesAreChildrenOfTheirOwnProducerSpan() throws Exception {
    RabbitMqConsumer consumer = consumer(new AtomicInteger(0));
    Dispatcher dispatcher = started(dispatcher(rabbit()));
    Map<String, SpanContext> producers = new LinkedHashMap<>();
    for (String id : List.of("order-1", "order-2", "order-3")) {
      producers.put(id, placeOrder(id));
    }
    Await.until(WAIT, "3 handled", () -> consumer.stats().handled() == 3);
    dispatcher.close();

    assertEquals(6, exporter.getFinishedSpanItems().size(), "spans");
    assertEquals(3, named("order.place").size());
    List<SpanData> processed = named(PROCESS);
    assertEquals(3, processed.size());
    for (SpanData span : processed) {
      SpanContext producer = producers.get(span.getAttributes().get(MESSAGE_ID));
      assertChildOf(span, producer);
      assertEquals(1L, span.getAttributes().get(ATTEMPT));
      assertEquals(0L, span.getAttributes().get(REDELIVERIES));
      assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode());
    }
    assertEquals(3, handled.size());
    for (Envelope e : handled) {
      SpanContext producer = producers.get(e.eventId());
      // flags 03: sampled, and the W3C level-2 "random trace id" bit the SDK sets
      String traceparent = "00-" + producer.getTraceId() + "-" + producer.getSpanId() + "-03";
      assertEquals(Map.of("traceparent", traceparent), e.headers(), "headers reaching the handler");
    }
    assertEquals(new RabbitMqConsumer.Stats(3, 0, 0, 0, 0), consumer.stats());
  }

  @Test
  void aDeliveryTheConsumerFailedIsRetriedAsANewRootLinkedToTheProducerSpan() throws Exception {
    RabbitMqConsumer consumer = consumer(new AtomicInteger(1));
    Dispatcher dispatcher = started(dispatcher(rabbit()));
    SpanContext producer = placeOrder("order-1");
    Await.until(WAIT, "handled after one failure", () -> consumer.stats().handled() == 1);
    dispatcher.close();

    assertEquals(3, exporter.getFinishedSpanItems().size(), "spans");
    assertEquals(1, named("order.place").size());
    List<SpanData> processed = named(PROCESS);
    assertEquals(2, processed.size());
    SpanData failed = processed.get(0);
    assertChildOf(failed, producer);
    assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
    assertEquals(1, failed.getEvents().size(), "the exception recorded");
    assertEquals(0L, failed.getAttributes().get(REDELIVERIES));
    assertLinkedRoot(processed.get(1), producer);
    assertEquals(1L, processed.get(1).getAttributes().get(ATTEMPT));
    assertEquals(1L, processed.get(1).getAttributes().get(REDELIVERIES));
    assertEquals(1, handled.size());
    assertEquals("1", handled.get(0).headers().get(TracingHandler.DELIVERY_COUNT));
    assertEquals(new RabbitMqConsumer.Stats(1, 0, 1, 0, 1), consumer.stats());
  }

  @Test
  void aMessagePostboxReSentAfterAFailedSendIsANewRootLinkedToTheProducerSpan() throws Exception {
    RabbitMqConsumer consumer = consumer(new AtomicInteger(0));
    RabbitMqTransport rabbit = rabbit();
    AtomicInteger failedSends = new AtomicInteger();
    Transport failsFirstSend =
        envelope -> {
          if (envelope.attempt() == 1) {
            failedSends.incrementAndGet();
            throw new IOException("connection reset before publishing (test)");
          }
          rabbit.send(envelope);
        };
    Dispatcher dispatcher = started(dispatcher(failsFirstSend));
    SpanContext producer = placeOrder("order-1");
    Await.until(WAIT, "handled after a re-send", () -> consumer.stats().handled() == 1);
    dispatcher.close();

    assertEquals(2, exporter.getFinishedSpanItems().size(), "spans");
    assertEquals(1, named("order.place").size());
    List<SpanData> processed = named(PROCESS);
    assertEquals(1, processed.size());
    assertLinkedRoot(processed.get(0), producer);
    assertEquals(2L, processed.get(0).getAttributes().get(ATTEMPT));
    assertEquals(0L, processed.get(0).getAttributes().get(REDELIVERIES));
    assertEquals(1, failedSends.get());
    assertEquals(new RabbitMqConsumer.Stats(1, 0, 0, 0, 0), consumer.stats());
  }

  /** The business transaction in its span; returns the span's context. */
  private SpanContext placeOrder(String id) {
    Span span = tracer.spanBuilder("order.place").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      Sql.commit(
          ds,
          c -> assertTrue(outbox.add(c, Message.of(TOPIC, "{\"id\":\"" + id + "\"}").eventId(id))));
      return span.getSpanContext();
    } finally {
      span.end();
    }
  }

  private List<SpanData> named(String name) {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
  }

  /** A consumer whose handler throws for its first {@code failures} calls, then records. */
  private RabbitMqConsumer consumer(AtomicInteger failures) throws Exception {
    RabbitMqConsumer.Handler handler =
        (tx, envelope) -> {
          if (failures.getAndDecrement() > 0) {
            throw new IllegalStateException("billing unavailable (test)");
          }
          handled.add(envelope);
        };
    return register(
        RabbitMqConsumer.builder(LocalRabbit.factory(), ds, inbox)
            .queue(queue)
            .name(CONSUMER)
            .requeueDelay(Duration.ofMillis(50))
            .handler(TracingHandler.w3c(tracer, handler))
            .build()
            .start());
  }

  private RabbitMqTransport rabbit() {
    return register(
        RabbitMqTransport.builder(LocalRabbit.factory()).routingKey(e -> queue).build());
  }

  private Dispatcher.Builder dispatcher(Transport transport) {
    return Dispatcher.builder(ds)
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .pollInterval(Duration.ofMillis(50))
        .backoff(Backoff.fixed(Duration.ofMillis(100)));
  }

  private <T extends AutoCloseable> T register(T closeable) {
    closeAfter.add(closeable);
    return closeable;
  }
}

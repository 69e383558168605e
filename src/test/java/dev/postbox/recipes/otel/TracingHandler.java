package dev.postbox.recipes.otel;

import dev.postbox.Envelope;
import dev.postbox.rabbitmq.RabbitMqConsumer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.sql.Connection;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link RabbitMqConsumer.Handler} that continues the producer's trace: it extracts the context
 * the outbox stored in the message's headers (see {@link TraceHeaders}) and runs the handler it
 * wraps inside a CONSUMER span named {@code "<topic> process"}. On the first delivery attempt the
 * span is a child of the producer's span; on a retry it is a new trace root with one link to the
 * producer's span, the OpenTelemetry messaging convention for retries, so a retried message does
 * not grow the producer's trace with every attempt.
 *
 * <p>A delivery is a retry when Postbox re-sent the message ({@link Envelope#attempt()} above 1,
 * the {@code postbox-attempt} header of the RabbitMQ transport) or when the broker redelivered it
 * after the consumer failed ({@code x-delivery-count} above 0, set by quorum queues; classic queues
 * only flag a redelivery, which a handler does not see). The inbox cannot tell: a failed attempt
 * rolls its claim back, and a duplicate of a handled event never reaches the handler.
 *
 * <p>Thread-safe: keeps no state, so one instance serves every channel of the consumer. Runs in the
 * consumer's transaction, after the inbox claim; the span ends when the wrapped handler returns or
 * throws, before the consumer commits and acknowledges.
 */
public final class TracingHandler implements RabbitMqConsumer.Handler {
  /** The header a quorum queue sets on a redelivered message: earlier failed deliveries. */
  static final String DELIVERY_COUNT = "x-delivery-count";

  private static final TextMapGetter<Map<String, String>> GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> headers) {
          return headers.keySet();
        }

        @Override
        public String get(Map<String, String> headers, String name) {
          return headers == null ? null : headers.get(name);
        }
      };

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final RabbitMqConsumer.Handler handler;

  /** Traces {@code handler} with {@code tracer}, reading the context with {@code propagator}. */
  public TracingHandler(
      Tracer tracer, TextMapPropagator propagator, RabbitMqConsumer.Handler handler) {
    this.tracer = Objects.requireNonNull(tracer, "tracer");
    this.propagator = Objects.requireNonNull(propagator, "propagator");
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /** Traces {@code handler}, reading W3C {@code traceparent} / {@code tracestate}. */
  public static TracingHandler w3c(Tracer tracer, RabbitMqConsumer.Handler handler) {
    return new TracingHandler(tracer, W3CTraceContextPropagator.getInstance(), handler);
  }

  @Override
  public void handle(Connection tx, Envelope envelope) throws Exception {
    // from the root, not the consumer thread's context: only the message says whose work this is
    Context producer = propagator.extract(Context.root(), envelope.headers(), GETTER);
    SpanContext producerSpan = Span.fromContext(producer).getSpanContext();
    int redeliveries = redeliveries(envelope);
    SpanBuilder builder =
        tracer
            .spanBuilder(envelope.topic() + " process")
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute("messaging.system", "rabbitmq")
            .setAttribute("messaging.operation.type", "process")
            .setAttribute("messaging.message.id", envelope.eventId())
            .setAttribute("postbox.attempt", envelope.attempt())
            .setAttribute("postbox.redeliveries", redeliveries);
    if (!producerSpan.isValid()) {
      builder.setNoParent(); // a message added outside any span: its own trace
    } else if (envelope.attempt() > 1 || redeliveries > 0) {
      builder.setNoParent().addLink(producerSpan);
    } else {
      builder.setParent(producer);
    }
    Span span = builder.startSpan();
    try (Scope ignored = span.makeCurrent()) {
      handler.handle(tx, envelope); // the side effects' own spans (JDBC, HTTP) nest under ours
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      span.end();
    }
  }

  /** How often the broker delivered this message before: 0 if the queue does not count. */
  static int redeliveries(Envelope envelope) {
    String count = envelope.headers().get(DELIVERY_COUNT);
    try {
      return count == null ? 0 : Math.max(0, Integer.parseInt(count));
    } catch (NumberFormatException e) {
      return 0; // not the broker's count; the attempt header still tells Postbox's retries
    }
  }
}

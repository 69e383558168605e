package dev.postbox.recipes.otel;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A header supplier for {@code Outbox.builder().headers(...)} that writes the current OpenTelemetry
 * context into every message added: with the default W3C propagator, {@code traceparent} of the
 * current span and {@code tracestate} when the span has one.
 *
 * <p>Thread-safe and stateless. The outbox calls it on the adding thread, inside the business
 * transaction, so the context it sees is the one of the code that adds the message; with no valid
 * span current it returns an empty map and the message carries no trace headers.
 */
public final class TraceHeaders implements Supplier<Map<String, String>> {
  private static final TextMapSetter<Map<String, String>> SETTER = Map::put;

  private final TextMapPropagator propagator;

  /** Writes what {@code propagator} injects (e.g. a composite of trace context and baggage). */
  public TraceHeaders(TextMapPropagator propagator) {
    this.propagator = Objects.requireNonNull(propagator, "propagator");
  }

  /** Writes {@code traceparent} and {@code tracestate} (W3C Trace Context). */
  public static TraceHeaders w3c() {
    return new TraceHeaders(W3CTraceContextPropagator.getInstance());
  }

  @Override
  public Map<String, String> get() {
    Map<String, String> headers = new LinkedHashMap<>();
    propagator.inject(Context.current(), headers, SETTER);
    return headers;
  }
}

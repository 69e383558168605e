package dev.postbox.recipes.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@link TraceHeaders} writes into a message, without a database or broker. */
class TraceHeadersTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN = "00f067aa0ba902b7";

  @Test
  void writesTraceparentAndTracestateOfTheCurrentSpan() {
    TraceState state = TraceState.builder().put("vendor", "v1").put("other", "o2").build();
    SpanContext current = SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), state);
    try (Scope ignored = Span.wrap(current).makeCurrent()) {
      assertEquals(
          Map.of(
              "traceparent",
              "00-" + TRACE + "-" + SPAN + "-01",
              "tracestate",
              "other=o2,vendor=v1"),
          TraceHeaders.w3c().get());
    }
  }

  @Test
  void writesTheSampledFlagAsItIs() {
    SpanContext unsampled =
        SpanContext.create(TRACE, SPAN, TraceFlags.getDefault(), TraceState.getDefault());
    try (Scope ignored = Span.wrap(unsampled).makeCurrent()) {
      assertEquals(
          Map.of("traceparent", "00-" + TRACE + "-" + SPAN + "-00"), TraceHeaders.w3c().get());
    }
  }

  @Test
  void writesNothingWithoutASpan() {
    assertEquals(Map.of(), TraceHeaders.w3c().get());
  }
}

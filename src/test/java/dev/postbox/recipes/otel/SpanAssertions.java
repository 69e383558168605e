package dev.postbox.recipes.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;

/** The two shapes a consumer span may take: a child of the producer's span, or a linked root. */
final class SpanAssertions {
  private SpanAssertions() {}

  /** A first attempt: the producer's trace, the producer's span as parent, no link. */
  static void assertChildOf(SpanData span, SpanContext producer) {
    assertEquals(SpanKind.CONSUMER, span.getKind());
    assertEquals(producer.getTraceId(), span.getTraceId(), "same trace");
    assertEquals(producer.getSpanId(), span.getParentSpanId(), "child of the producer's span");
    assertEquals(true, span.getParentSpanContext().isRemote(), "parent read from the message");
    assertEquals(List.of(), span.getLinks(), "links");
  }

  /** A retry: its own trace, no parent, one link to the producer's span as the message carried. */
  static void assertLinkedRoot(SpanData span, SpanContext producer) {
    assertEquals(SpanKind.CONSUMER, span.getKind());
    assertNotEquals(producer.getTraceId(), span.getTraceId(), "a new trace");
    assertEquals(SpanId.getInvalid(), span.getParentSpanId(), "a root");
    assertEquals(1, span.getTotalRecordedLinks(), "links");
    // the link holds the context extracted from the message: equal ids, flags and state, remote
    SpanContext remote =
        SpanContext.createFromRemoteParent(
            producer.getTraceId(),
            producer.getSpanId(),
            producer.getTraceFlags(),
            producer.getTraceState());
    assertEquals(List.of(remote), span.getLinks().stream().map(l -> l.getSpanContext()).toList());
    assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode());
  }
}

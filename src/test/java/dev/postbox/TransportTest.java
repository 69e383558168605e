package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@SuppressWarnings("deprecation") // the deprecated default sendBatch, kept until it is removed
class TransportTest {

  private static Envelope envelope(String eventId) {
    return new Envelope(eventId, "t", null, "{}", Map.of(), 1, Instant.EPOCH);
  }

  @Test
  void defaultSendBatchSendsEachInOrderAndNamesOnlyTheFailures() {
    List<String> sent = new ArrayList<>();
    Transport transport =
        e -> {
          if (e.eventId().equals("b")) {
            throw new IllegalStateException("no route");
          }
          sent.add(e.eventId());
        };

    BatchSendException failed =
        assertThrows(
            BatchSendException.class,
            () -> transport.sendBatch(List.of(envelope("a"), envelope("b"), envelope("c"))));
    assertEquals(List.of("a", "c"), sent);
    assertEquals(List.of("b"), List.copyOf(failed.failures().keySet()));
    assertEquals("no route", failed.failures().get("b").getMessage());
    assertTrue(failed.getMessage().contains("eventId=b"), failed.getMessage());
  }

  @Test
  void defaultSendBatchReturnsNormallyWhenAllAreSent() throws Exception {
    List<String> sent = new ArrayList<>();
    Transport transport = e -> sent.add(e.eventId());
    transport.sendBatch(List.of(envelope("a"), envelope("b")));
    assertEquals(List.of("a", "b"), sent);
  }

  @Test
  void defaultSendBatchStopsAtAnInterruptAndNamesOnlyWhatWasNotSent() {
    List<String> sent = new ArrayList<>();
    Transport transport =
        e -> {
          if (e.eventId().equals("b")) {
            throw new InterruptedException();
          }
          sent.add(e.eventId());
        };
    BatchSendException failed =
        assertThrows(
            BatchSendException.class,
            () -> transport.sendBatch(List.of(envelope("a"), envelope("b"), envelope("c"))));
    assertTrue(Thread.interrupted(), "interrupt status kept (and cleared here)");
    assertEquals(List.of("a"), sent);
    assertEquals(List.of("b", "c"), List.copyOf(failed.failures().keySet()));
  }

  @Test
  void batchSendExceptionRefusesNullsByName() {
    BatchSendException e = new BatchSendException();
    InvalidValueException noEnvelope =
        assertThrows(
            InvalidValueException.class, () -> e.fail(null, new IllegalStateException("x")));
    assertEquals("envelope", noEnvelope.field());
    InvalidValueException noCause =
        assertThrows(InvalidValueException.class, () -> e.fail(envelope("a"), null));
    assertEquals("cause", noCause.field());
    assertTrue(e.failures().isEmpty());
  }
}

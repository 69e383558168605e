package dev.postbox;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Sends outbox messages to a broker (Kafka, RabbitMQ, NATS, …) or to in-process handlers; a
 * transport that sends a whole claim at once implements {@link BatchTransport}. Delivery is
 * at-least-once: consumers dedupe on {@link Envelope#eventId()}.
 *
 * <p>Called by the dispatcher on virtual threads, concurrently up to its {@code concurrency}, never
 * inside a database transaction. Guide: {@code docs/outbox.md#writing-a-transport}.
 */
@FunctionalInterface
public interface Transport {
  /**
   * Sends one envelope; return normally only once the broker has accepted it, throw to have it
   * retried with backoff (or parked after its last attempt). Throw a {@link
   * RejectedMessageException} for a message the broker refuses while it is itself fine, {@link
   * RejectedMessageException#permanent} for one no retry can help (it is parked at once).
   *
   * <p>A call still running after the dispatcher's {@code sendTimeout} (default 1 min) is
   * interrupted and counts as a failed attempt; {@link Dispatcher#close()} interrupts a call still
   * running after its {@code shutdownTimeout} and hands its message back. A call that ignores the
   * interrupt is abandoned with a WARN, so give the broker client its own, shorter timeouts.
   *
   * @param envelope the message to send, with its attempt number
   * @throws Exception if the broker did not accept the message; it is retried with backoff
   */
  void send(Envelope envelope) throws Exception;

  /**
   * Sends every envelope of {@code batch} one after another with {@link #send}, skipping (and
   * failing) the envelopes of a key after one of the key failed; interrupted, it fails the envelope
   * being sent and those after it, keeps the interrupt status and throws a {@link
   * BatchSendException} naming them.
   *
   * <p>A transport class that overrides this method still gets whole claims from the dispatcher in
   * this release (found by reflection; a proxy class counts as overriding), and the dispatcher logs
   * one WARN per such class.
   *
   * @param batch the envelopes to send; unmodifiable
   * @throws BatchSendException naming the envelopes that were not sent; the others count as sent
   * @throws Exception if the whole batch failed
   * @deprecated implement {@link BatchTransport}, whose {@link BatchTransport#sendBatch} has the
   *     same contract; this method goes in a later release
   */
  @Deprecated(since = "0.2.0")
  default void sendBatch(List<Envelope> batch) throws Exception {
    BatchSendException failures = null;
    Set<String> failedKeys = null;
    for (int i = 0; i < batch.size(); i++) {
      String key = batch.get(i).key();
      if (key != null && failedKeys != null && failedKeys.contains(key)) {
        failures.fail(
            batch.get(i), new PostboxException("not sent: an earlier message of its key failed"));
        continue;
      }
      try {
        send(batch.get(i));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failures = failures != null ? failures : new BatchSendException();
        for (int rest = i; rest < batch.size(); rest++) {
          failures.fail(batch.get(rest), e);
        }
        throw failures;
      } catch (Exception e) {
        failures = failures != null ? failures : new BatchSendException();
        failures.fail(batch.get(i), e);
        if (key != null) {
          failedKeys = failedKeys != null ? failedKeys : new HashSet<>();
          failedKeys.add(key);
        }
      }
    }
    if (failures != null) {
      throw failures;
    }
  }
}

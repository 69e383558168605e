package dev.postbox;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Sends outbox messages to a broker (Kafka, RabbitMQ, NATS, …) or to in-process handlers.
 *
 * <p>Called by the dispatcher on virtual threads, concurrently up to its {@code concurrency}, never
 * inside a database transaction. Return normally only once the broker has accepted the message;
 * throw to have it retried with backoff. Delivery is at-least-once: consumers dedupe on {@link
 * Envelope#eventId()}.
 *
 * <p>A transport that can send many messages in one go (a Kafka producer, RabbitMQ publisher
 * confirms) implements {@link BatchTransport}: the dispatcher then hands it each claimed batch
 * whole, on one thread, instead of one message per thread.
 */
@FunctionalInterface
public interface Transport {
  /**
   * Sends one envelope to the broker. Return normally only once the broker has accepted it; throw
   * to have it retried with backoff (or parked after its last attempt). Throw a {@link
   * RejectedMessageException} for a message the broker refuses while it is itself fine, and {@link
   * RejectedMessageException#permanent} for one no retry can help: it is parked at once.
   *
   * <p>While a call runs, it holds one of the dispatcher's {@code concurrency} slots and its row
   * stays leased (the lease is renewed), and on an outbox ordered by key the later messages of its
   * key wait for it. A call still running after the dispatcher's {@code sendTimeout} (default 1
   * min) is interrupted and counts as a failed attempt, recorded with a {@link
   * java.util.concurrent.TimeoutException} ("send timed out after PT1M"): the message is retried
   * after the backoff, and the slot and the key are free again at once. A call that ignores the
   * interrupt is abandoned with a WARN: it runs on, and whatever it returns or throws later is
   * dropped (the message may then reach the broker twice). Give the broker client its own timeouts,
   * shorter than {@code sendTimeout}.
   *
   * <p>{@link Dispatcher#close()} interrupts a call too: it waits up to the dispatcher's {@code
   * shutdownTimeout} for running sends, then interrupts the threads of those still running (at once
   * if the thread calling {@code close()} is interrupted). A send that then throws with its
   * thread's interrupt status set, or with an {@link InterruptedException} in its cause chain, has
   * its message handed back: due again as before its claim, the attempt not counted. A send that
   * ignores that interrupt is left running: {@code close()} waits up to 5 seconds more for it and
   * returns, and the message is claimed again once its lease runs out.
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
  @Deprecated(since = "0.2.0", forRemoval = true)
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

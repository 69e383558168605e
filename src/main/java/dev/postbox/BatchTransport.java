package dev.postbox;

import java.util.List;

/**
 * A {@link Transport} that sends a whole claim at once (a Kafka producer, RabbitMQ publisher
 * confirms): the dispatcher hands it each claimed batch in one {@link #sendBatch} call instead of
 * one {@link #send} per message. Called on virtual threads, one per batch and up to the
 * dispatcher's {@code concurrency} at once, never inside a database transaction; guide: {@code
 * docs/outbox.md#writing-a-transport}.
 *
 * <p>Implementing {@code sendBatch} also overrides the deprecated {@link Transport#sendBatch}, so
 * javac notes a use of a deprecated API (a warning with {@code -Xlint:deprecation}) until that
 * method is removed; {@code @SuppressWarnings("deprecation")} on your method silences it.
 */
public interface BatchTransport extends Transport {
  /**
   * Sends every envelope of {@code batch} (at most the dispatcher's {@code batchSize}, in the order
   * they were added); return normally only once the broker has accepted every one. To fail some of
   * them, throw a {@link BatchSendException} naming those: they are retried with backoff (or parked
   * after their last attempt) and the others count as sent; any other exception fails the whole
   * batch. Must not modify {@code batch}.
   *
   * <p>On an outbox ordered by key, the envelopes of one key are in the batch in their order, and
   * once one of them fails the later ones of its key must not be sent (name them failed too, or
   * leave them: either way the dispatcher hands them back and sends them after the failed one).
   *
   * <p>The dispatcher's {@code sendTimeout} applies to the whole call: a batch still running then
   * is interrupted and every envelope in it counts as failed, those it had sent too (they are sent
   * again: consumers dedupe); a call that ignores the interrupt is abandoned and its late outcome
   * dropped. {@link Dispatcher#close()} interrupts a batch still running after the {@code
   * shutdownTimeout}.
   *
   * @param batch the envelopes to send; unmodifiable
   * @throws BatchSendException naming the envelopes that were not sent; the others count as sent
   * @throws Exception if the whole batch failed
   */
  @Override
  void sendBatch(List<Envelope> batch) throws Exception;
}

package dev.postbox;

import java.util.List;

/**
 * Sends outbox messages to a broker (Kafka, RabbitMQ, NATS, …) or to in-process handlers.
 *
 * <p>Called by the dispatcher on virtual threads, concurrently up to its {@code concurrency}, never
 * inside a database transaction. Return normally only once the broker has accepted the message;
 * throw to have it retried with backoff. Delivery is at-least-once: consumers dedupe on {@link
 * Envelope#eventId()}.
 *
 * <p>A transport that can send many messages in one go (a Kafka producer, RabbitMQ publisher
 * confirms) overrides {@link #sendBatch}: the dispatcher then hands it each claimed batch whole, on
 * one thread, instead of one message per thread.
 */
@FunctionalInterface
public interface Transport {
  void send(Envelope envelope) throws Exception;

  /**
   * Sends every envelope of {@code batch} (at most the dispatcher's {@code batchSize}, oldest
   * first). The dispatcher calls this instead of {@link #send} if, and only if, the transport's
   * class overrides it; each call takes one of the dispatcher's {@code concurrency} slots, so up to
   * that many batches are sent at once, each on its own virtual thread, outside any transaction.
   *
   * <p>Return normally only once the broker has accepted every envelope. To fail some of them,
   * throw a {@link BatchSendException} naming those: they are retried with backoff (or parked after
   * their last attempt) and the others count as sent. Any other exception fails the whole batch.
   * Must not modify {@code batch}.
   *
   * <p>The default sends one envelope after another with {@link #send}.
   */
  default void sendBatch(List<Envelope> batch) throws Exception {
    BatchSendException failures = null;
    for (Envelope envelope : batch) {
      try {
        send(envelope);
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        if (failures == null) {
          failures = new BatchSendException();
        }
        failures.fail(envelope, e);
      }
    }
    if (failures != null) {
      throw failures;
    }
  }
}

package dev.postbox;

/**
 * Sends outbox messages to a broker (Kafka, RabbitMQ, NATS, …) or to in-process handlers.
 *
 * <p>Called by the dispatcher on virtual threads, concurrently up to its {@code concurrency}, never
 * inside a database transaction. Return normally only once the broker has accepted the message;
 * throw to have it retried with backoff. Delivery is at-least-once: consumers dedupe on {@link
 * Envelope#eventId()}.
 */
@FunctionalInterface
public interface Transport {
  void send(Envelope envelope) throws Exception;
}

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
 * confirms) overrides {@link #sendBatch}: the dispatcher then hands it each claimed batch whole, on
 * one thread, instead of one message per thread.
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
   * Sends every envelope of {@code batch} (at most the dispatcher's {@code batchSize}, in the order
   * they were added). The dispatcher calls this instead of {@link #send} if, and only if, the
   * transport's class overrides it (checked by reflection when the dispatcher is built: a proxy
   * class, such as a Spring AOP proxy or a Mockito spy, counts as overriding); each call takes one
   * of the dispatcher's {@code concurrency} slots, so up to that many batches are sent at once,
   * each on its own virtual thread, outside any transaction.
   *
   * <p>Return normally only once the broker has accepted every envelope. To fail some of them,
   * throw a {@link BatchSendException} naming those: they are retried with backoff (or parked after
   * their last attempt) and the others count as sent. Any other exception fails the whole batch.
   * Must not modify {@code batch}.
   *
   * <p>On an outbox ordered by key, the envelopes of one key are in the batch in their order, and
   * once one of them fails the later ones of its key must not be sent (name them failed too, or
   * leave them: either way the dispatcher hands them back and sends them after the failed one).
   *
   * <p>The default sends one envelope after another with {@link #send}, skipping (and failing) the
   * envelopes of a key after one of the key failed. Interrupted, it fails the envelope being sent
   * and those after it, keeps the thread's interrupt status and throws a {@link BatchSendException}
   * naming them, so the ones already sent do not count as failed.
   *
   * <p>The dispatcher's {@code sendTimeout} applies to the whole call: a batch still running then
   * is interrupted and every envelope in it counts as failed, those it had sent too (they are sent
   * again: consumers dedupe); as for {@link #send}, a call that ignores the interrupt is abandoned
   * and its late outcome dropped. {@link Dispatcher#close()} interrupts a batch still running after
   * the {@code shutdownTimeout}.
   *
   * @param batch the envelopes to send; unmodifiable
   * @throws BatchSendException naming the envelopes that were not sent; the others count as sent
   * @throws Exception if the whole batch failed
   */
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

package dev.postbox;

import java.time.Instant;

/**
 * A failing row: pending, it has failed at least once and waits for its next attempt (or is being
 * attempted again right now, {@link #leased()}). It is retried with backoff and parked after its
 * last attempt; failures refunded during a broker outage do not make a row failing.
 *
 * <p>Immutable and thread-safe; a snapshot read on the caller's connection. Guide: {@code
 * docs/operations.md#failing-rows}.
 *
 * @param id the row's primary key
 * @param ref the event id for outbox rows, the job id for jobs
 * @param topic the topic, or the job name
 * @param key the message key for outbox rows, the dedupe key for jobs; null if none
 * @param attempts attempts made so far, counting one running now
 * @param lastError class and message of the last failure, truncated
 * @param nextAttempt when the row is due again, by the database clock: the end of its backoff; for
 *     a leased row, the end of its lease (the attempt running now is its next attempt)
 * @param leased true if a dispatcher is attempting the row right now (its lease has not run out)
 * @param createdAt when the row was added, by the database clock
 */
public record Failing(
    long id,
    String ref,
    String topic,
    String key,
    int attempts,
    String lastError,
    Instant nextAttempt,
    boolean leased,
    Instant createdAt) {}

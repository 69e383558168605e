package dev.postbox;

import java.time.Instant;

/**
 * A parked row: it ran out of attempts (or could never be delivered) and waits for replay or
 * discard. Never retried automatically.
 *
 * <p>Immutable and thread-safe; a snapshot read on the caller's connection. Guide: {@code
 * docs/operations.md#parked-rows}.
 *
 * @param id the row's primary key
 * @param ref the event id for outbox rows, the job id for jobs
 * @param topic the topic, or the job name
 * @param attempts attempts made
 * @param lastError class and message of the last failure, truncated
 * @param createdAt when the row was added, by the database clock
 */
public record Parked(
    long id, String ref, String topic, int attempts, String lastError, Instant createdAt) {}

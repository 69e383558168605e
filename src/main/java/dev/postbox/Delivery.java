package dev.postbox;

/**
 * One attempt to deliver a stored row, as reported to a {@link Listener}.
 *
 * <p>Immutable and thread-safe; reported after the attempt's outcome was committed. Guide: {@code
 * docs/operations.md#listener}.
 *
 * @param table the table the row lives in
 * @param id the row's primary key
 * @param ref the event id for outbox rows, the job id for jobs
 * @param topic the topic, or the job name
 * @param attempt the attempt number, 1-based
 */
public record Delivery(String table, long id, String ref, String topic, int attempt) {}

package dev.postbox.internal.console;

import java.time.Instant;

/**
 * A parked or failing row as the console lists it; never its payload.
 *
 * @param id the row's primary key
 * @param ref the event id, or the job id
 * @param topic the topic, or the job name
 * @param key the message key, or the job's dedupe key; null if none
 * @param attempts attempts made
 * @param lastError the last failure, as stored (trimmed to the column)
 * @param availableAt when it is due again (a failing row) or was parked (a parked one)
 * @param createdAt when it was added
 * @param payload its payload if the console shows payloads, else null
 */
record RowView(
    long id,
    String ref,
    String topic,
    String key,
    int attempts,
    String lastError,
    Instant availableAt,
    Instant createdAt,
    String payload) {}

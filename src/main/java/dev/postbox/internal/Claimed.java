package dev.postbox.internal;

/**
 * A row this instance holds a lease on.
 *
 * @param id primary key
 * @param attempt this attempt's number (attempts after the claim incremented it)
 * @param maxAttempts the row's own limit, or 0 to use the dispatcher's
 * @param ref event id or job id, for logs
 * @param topic topic or job name, for logs
 * @param item what the deliverer receives
 */
public record Claimed<T>(long id, int attempt, int maxAttempts, String ref, String topic, T item) {}

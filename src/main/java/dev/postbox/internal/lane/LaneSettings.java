package dev.postbox.internal.lane;

import dev.postbox.Backoff;
import dev.postbox.Listener;
import java.time.Duration;

/**
 * Everything a lane needs to know besides its table, already validated by the public builders.
 *
 * @param instanceId written to {@code leased_by}
 * @param batchSize rows per claim
 * @param concurrency deliveries running at once
 * @param claimsInFlight claims at once while claims come back full (1: one at a time)
 * @param pollInterval longest wait after an empty claim
 * @param lease how long a claim holds a row; renewed every third of it while held
 * @param maxAttempts attempts before parking, for rows without their own limit
 * @param backoff delay after a failed attempt
 * @param retention how long finished rows are kept; zero deletes them at once
 * @param cleanupInterval how often finished rows past retention are deleted
 * @param vacuumEvery finished rows between two vacuums where the database has them; 0 for never
 * @param detectOutage true to pause the lane, not the rows, when every delivery fails
 * @param shutdownTimeout how long close waits for running deliveries
 * @param listener metrics hooks
 */
public record LaneSettings(
    String instanceId,
    int batchSize,
    int concurrency,
    int claimsInFlight,
    Duration pollInterval,
    Duration lease,
    int maxAttempts,
    Backoff backoff,
    Duration retention,
    Duration cleanupInterval,
    int vacuumEvery,
    boolean detectOutage,
    Duration shutdownTimeout,
    Listener listener) {}

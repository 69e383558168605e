package dev.postbox;

import dev.postbox.internal.recurring.RecurringJobs;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

/** The options of one built {@link Dispatcher}: copied from its builder, never changed after. */
record DispatcherSettings(
    DataSource dataSource,
    Outbox outbox,
    Transport transport,
    Jobs jobs,
    Inbox inbox,
    Map<String, JobHandler> handlers,
    Map<String, RecurringJobs.Declared> recurring,
    int batchSize,
    int concurrency,
    int claimsInFlight,
    Duration pollInterval,
    Duration lease,
    Duration sendTimeout,
    int maxAttempts,
    Backoff backoff,
    String instanceId,
    Duration shutdownTimeout,
    Duration cleanupInterval,
    int vacuumEvery,
    Listener listener,
    Database database) {}

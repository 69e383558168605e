package dev.postbox.bench.lockfree;

import dev.postbox.BackgroundQueue;
import java.time.Duration;

/**
 * The options of one {@link BackgroundQueue}, copied from its builder by {@link
 * BackgroundQueue.Builder#build()} and already validated there, so that changing the builder later
 * changes nothing already built.
 *
 * <p>Immutable (every component is), so safe to share between any threads.
 *
 * @param name used in logs and thread names
 * @param workers tasks running at once, 1 to 10,000
 * @param capacity tasks waiting for a worker, 1 to 1,000,000
 * @param drainTimeout how long {@code close()} keeps running queued tasks, 0 to 1 hour
 * @param closeOnShutdown whether a JVM shutdown hook closes the queue
 */
record BackgroundQueueSettings(
    String name, int workers, int capacity, Duration drainTimeout, boolean closeOnShutdown) {}

package dev.postbox.internal.console;

import java.time.Instant;

/**
 * A dispatcher instance holding leases on a table.
 *
 * @param instance its instance id
 * @param leased the rows it holds (at most {@link ConsoleSql#CAP} read)
 * @param soonestEnd when the first of its leases runs out unless renewed
 */
record LeaseHolder(String instance, long leased, Instant soonestEnd) {}

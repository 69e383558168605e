/**
 * The delivery lane, one per queue table (the outbox's, the job queue's): claim loops claim due
 * rows in batches with a lease on the database clock, deliveries run in slots outside any
 * transaction, the failure policy and the outage turn failures into outcomes, the outcome writer
 * records them fenced by the lease, and leases are renewed while rows are held. Not API.
 *
 * <p>Threads: per lane, a platform thread per claim loop and one for the outcome writer (virtual on
 * SQLite); virtual threads for the delivery timeouts, lease renewal, cleanup and vacuum; a fresh
 * virtual thread per delivery. The parts share state only through their own locks and queues; no
 * connection is held while a row is delivered.
 */
package dev.postbox.internal.lane;

/**
 * Postbox public API: the transactional outbox, the durable job queue with recurring jobs, the
 * inbox, the dispatcher that delivers them, and the in-process background queue.
 */
package dev.postbox;

/**
 * Postbox public API: the transactional outbox, the durable job queue, the background queue and the
 * inbox.
 */
package dev.postbox;

/**
 * The one delivery engine behind the outbox and the job queue: claim, lease, deliver, complete,
 * retry, park, clean up. Not API.
 */
package dev.postbox.internal;

/**
 * The one delivery engine behind the outbox and the job queue, a lane per table: claim, lease,
 * deliver, record outcomes, retry, park, clean up. Also what the API classes share when they write
 * on the caller's connection (auto-commit refusal, idempotent insert, key locks, input rules) and
 * the background queue's free-slot stack. Not API.
 */
package dev.postbox.internal;

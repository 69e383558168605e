/**
 * What the engine and the API classes share: writing on the caller's connection (auto-commit
 * refusal, idempotent insert, key locks), input rules, queue stats and parked rows, the table
 * checks at start, the {@code LISTEN} connection, periodic upkeep threads. The delivery lane is in
 * {@code dev.postbox.internal.lane}. Not API.
 */
package dev.postbox.internal;

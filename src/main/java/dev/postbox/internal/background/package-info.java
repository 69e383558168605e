/**
 * The background queue's working: a bounded line of tasks, a semaphore of worker permits, a fresh
 * virtual thread per task and the close protocol. Not API.
 */
package dev.postbox.internal.background;

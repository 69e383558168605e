/**
 * The background queue's working: a bounded line of tasks, a starter thread that takes a semaphore
 * permit before it starts each task's virtual thread, the close protocol and the shutdown hook. Not
 * API.
 */
package dev.postbox.internal.background;

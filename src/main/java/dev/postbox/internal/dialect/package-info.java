/**
 * One narrow {@link dev.postbox.internal.dialect.Dialect} and one small class per database: what
 * differs besides the queue statements (the clock, timestamps, insert-if-absent, error codes). The
 * statements on a queue table are in {@code dev.postbox.internal.sql}.
 */
package dev.postbox.internal.dialect;

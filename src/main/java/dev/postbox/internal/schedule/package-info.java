/**
 * Cron expressions: the parser and the instants an expression ticks at in a time zone. Knows no SQL
 * and no dispatcher. Not API.
 */
package dev.postbox.internal.schedule;

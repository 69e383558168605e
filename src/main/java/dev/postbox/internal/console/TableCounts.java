package dev.postbox.internal.console;

import java.time.Duration;

/**
 * A table's counts on the console's overview, each read from at most {@link ConsoleSql#CAP} rows.
 *
 * @param due rows whose time has come that no live lease holds (rows behind a blocked key too)
 * @param running rows held by a live lease
 * @param retrying rows that failed and wait for their next attempt
 * @param parked rows out of attempts, waiting for replay or discard
 * @param lag the age of the oldest due row, by the database clock
 */
record TableCounts(long due, long running, long retrying, long parked, Duration lag) {}

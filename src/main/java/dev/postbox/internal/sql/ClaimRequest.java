package dev.postbox.internal.sql;

import java.util.List;

/**
 * One claim for a {@link ClaimStrategy} to run: how many rows, which, what to finish first and
 * where the claimed rows go. Not thread-safe: {@code into} and {@code finish} are written by the
 * claim.
 *
 * @param limit how many rows the claim takes at most
 * @param probe for an outage probe, the rows it may take (the newest it allows); null for a claim
 *     of due rows, oldest due first
 * @param finish delivered rows to finish in the same statement or transaction, whose {@code
 *     written} the claim sets; null: nothing to finish
 * @param searchAll on a table ordered by key whose window of due rows is full, look beyond it at
 *     every key rather than the walk's next ones ({@link KeyWalk#everyHead}), so that the report
 *     says whether anything was claimable
 * @param reader maps a claimed row
 * @param into receives the claimed rows
 */
public record ClaimRequest<T>(
    int limit,
    Probe probe,
    Finish finish,
    boolean searchAll,
    RowReader<T> reader,
    List<Claimed<T>> into) {}

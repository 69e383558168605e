package dev.postbox.internal.sql;

import java.util.List;

/**
 * What an outage probe may claim: one due row, newest first, but none of {@code excluded} (rows
 * whose probe already failed in this outage); if {@code fresh}, only a row never attempted, whose
 * failure would be new evidence of an outage rather than a known failing (perhaps poison) row
 * failing again. On a table ordered by key, key heads are old and a burst of poison (each at the
 * head of its own key) can be newer than every healthy head: without {@code fresh} the probes would
 * walk through the poison first, one growing pause each.
 */
public record Probe(List<Long> excluded, boolean fresh) {
  public Probe {
    excluded = List.copyOf(excluded);
  }
}

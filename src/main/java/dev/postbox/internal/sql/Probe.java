package dev.postbox.internal.sql;

import java.util.List;

/**
 * What an outage probe may claim: one due row, but none of {@code excluded} (rows whose probe
 * already failed in this outage); the newest, or the oldest due if {@code oldest}; if {@code
 * fresh}, only a row never attempted, whose failure would be new evidence of an outage rather than
 * a known failing (perhaps poison) row failing again.
 *
 * <p>Why both ends: poison that looks like an outage tends to sit at one end. Unordered, failed
 * rows are the oldest due and fresh traffic the newest; ordered by key, a key's head is its oldest
 * pending message, so a burst of poison (each the head of its own key) is newer than every healthy
 * head. Probing from one end only walks through the poison, one doubling pause each (seen: healthy
 * messages stuck for minutes); alternating ends reaches a healthy message by the second probe.
 */
public record Probe(List<Long> excluded, boolean fresh, boolean oldest) {
  public Probe {
    excluded = List.copyOf(excluded);
  }
}

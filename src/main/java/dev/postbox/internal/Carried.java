package dev.postbox.internal;

import java.util.List;

/**
 * Successful deliveries that the next claim records, in its own statement or transaction, instead
 * of a separate write: under a steady trickle of messages that halves the dispatcher's round trips
 * and commits. All of one claim count, since the fenced statement binds one.
 */
final class Carried {
  final int claims;
  final List<Outcome> outcomes;

  /** Rows the fenced statement changed; fewer than the outcomes if leases were lost. */
  int written;

  Carried(int claims, List<Outcome> outcomes) {
    this.claims = claims;
    this.outcomes = outcomes;
  }
}

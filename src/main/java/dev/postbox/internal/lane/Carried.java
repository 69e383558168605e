package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Finish;
import java.util.ArrayList;
import java.util.List;

/** Successes the next claim records ({@link Finish}), with the outcomes they came from. */
final class Carried extends Finish {
  final List<Outcome> outcomes;

  Carried(int claims, List<Outcome> outcomes) {
    super(claims, ids(outcomes));
    this.outcomes = outcomes;
  }

  private static List<Long> ids(List<Outcome> outcomes) {
    List<Long> ids = new ArrayList<>(outcomes.size());
    for (Outcome o : outcomes) {
      ids.add(o.row().id());
    }
    return ids;
  }
}

package dev.postbox.internal.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;

/**
 * The instants at which a cron expression ticks in a time zone. A matching local time that does not
 * exist (in a daylight-saving gap) ticks at the first instant after the gap, once however many of
 * the gap's local times match; a local time that occurs twice (in an overlap) ticks once, at its
 * first occurrence. Immutable and thread-safe.
 */
public final class CronTicks {
  private final CronFields fields;
  private final ZoneId zone;

  public CronTicks(CronFields fields, ZoneId zone) {
    this.fields = fields;
    this.zone = zone;
  }

  /** The first tick strictly after {@code after}, or null if the expression never matches again. */
  public Instant next(Instant after) {
    ZoneRules rules = zone.getRules();
    LocalDateTime local = LocalDateTime.ofInstant(after, zone);
    while (true) {
      LocalDateTime match = fields.next(local);
      if (match == null) {
        return null;
      }
      Instant tick = instant(rules, match);
      // in an overlap's second pass, the first pass's times lie before `after`: skip them
      if (tick.isAfter(after)) {
        return tick;
      }
      local = match;
    }
  }

  private static Instant instant(ZoneRules rules, LocalDateTime local) {
    ZoneOffsetTransition transition = rules.getTransition(local);
    if (transition == null) {
      return local.toInstant(rules.getOffset(local));
    }
    // a gap: the first instant after it; an overlap: the earlier offset, the first occurrence
    return transition.isGap()
        ? transition.getInstant()
        : local.toInstant(transition.getOffsetBefore());
  }
}

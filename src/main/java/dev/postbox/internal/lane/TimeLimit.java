package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long one delivery of a lane may run before it times out ({@link DeliveryTimeouts}).
 *
 * @param action what a delivery is, for the error of one that timed out: "send timed out after
 *     PT1M"
 * @param timeouts the timeout of a row's delivery; null for none
 */
public record TimeLimit<T>(String action, Function<? super Claimed<T>, Duration> timeouts) {
  private static final Logger log = LoggerFactory.getLogger(TimeLimit.class);

  /** The timeout of the delivery of {@code row}; null for none, or for a row not delivered. */
  Duration of(Claimed<T> row) {
    if (row.defect() != null) {
      return null; // parked at once
    }
    try {
      return timeouts.apply(row);
    } catch (RuntimeException e) { // a bug: the row is delivered all the same, without a limit
      log.error("no timeout for id={} ref={} topic={}", row.id(), row.ref(), row.topic(), e);
      return null;
    }
  }

  /** The timeout of a batch: the longest of its rows', or none if one of them has none. */
  Duration of(List<Claimed<T>> rows) {
    Duration longest = null;
    for (Claimed<T> row : rows) {
      Duration timeout = of(row);
      if (timeout == null) {
        return null;
      }
      longest = longest == null || timeout.compareTo(longest) > 0 ? timeout : longest;
    }
    return longest;
  }

  /**
   * The failure of a delivery that timed out after {@code timeout}, with the stack of its {@code
   * thread} at the time: where the transport or the handler hung.
   */
  TimeoutException timedOut(Duration timeout, Thread thread) {
    TimeoutException e = new TimeoutException(action + " timed out after " + timeout);
    try {
      e.setStackTrace(thread.getStackTrace());
    } catch (RuntimeException | OutOfMemoryError ignored) {
      // the watchdog's own stack then: the timeout is recorded all the same
    }
    return e;
  }

  /** The delivery of {@code row}, for logs: ids, never the payload. */
  static String what(Claimed<?> row) {
    return "delivery of id=" + row.id() + " ref=" + row.ref() + " topic=" + row.topic();
  }

  /** The delivery of a batch, for logs. */
  static String what(List<? extends Claimed<?>> rows) {
    Claimed<?> first = rows.get(0);
    return "batch of "
        + rows.size()
        + " rows (first id="
        + first.id()
        + " ref="
        + first.ref()
        + " topic="
        + first.topic()
        + ")";
  }
}

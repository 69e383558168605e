package dev.postbox;

import dev.postbox.internal.Require;
import java.time.Duration;

/**
 * Thrown by a {@link JobHandler} or a {@link Transport} to put a row off: it is due again after the
 * delay, and the attempt is not counted (a <em>snooze</em>), for answers such as "HTTP 429, try
 * again in 30 s" or "the partner's window opens at 9:00". The reason is stored in the row's {@code
 * last_error}, as a failure's is. On an outbox ordered by key the message stays the head of its
 * key: the messages behind it wait.
 *
 * <p>Snoozes are bounded: a row snoozed {@link #MAX_SNOOZES} times already counts its next snooze
 * as a failed attempt (retried after the delay asked for, parked after its last attempt), so a
 * handler that always answers "later" cannot keep a row forever. A snooze is never taken as a sign
 * of a broker outage. Thrown like any exception, from any thread, also as the cause of another
 * exception; in a {@link BatchTransport#sendBatch}, name the envelope with {@link
 * BatchSendException#fail} and this as its cause. Guide: {@code docs/jobs.md#snooze}.
 */
public final class RetryLater extends PostboxException {
  private static final long serialVersionUID = 1L;

  /** Snoozes of one row that are not counted as attempts; the next one counts as one. */
  public static final int MAX_SNOOZES = 100;

  private final Duration delay;

  private RetryLater(String reason, Duration delay) {
    super(reason, null);
    this.delay = delay;
  }

  /**
   * A snooze: due again in {@code delay}, the attempt not counted.
   *
   * @param delay how long to wait, from zero to 365 days
   * @return the snooze, to throw
   * @throws InvalidValueException if {@code delay} is null, negative or longer than 365 days
   */
  public static RetryLater in(Duration delay) {
    return in(delay, "retry later");
  }

  /**
   * A snooze with the reason stored in the row's {@code last_error}.
   *
   * @param delay how long to wait, from zero to 365 days
   * @param reason why, e.g. "429 from the billing API"; stored, so it must not hold secrets
   * @return the snooze, to throw
   * @throws InvalidValueException if {@code delay} is null, negative or longer than 365 days, or
   *     {@code reason} is null
   */
  public static RetryLater in(Duration delay, String reason) {
    Require.between("delay", delay, Duration.ZERO, Duration.ofDays(365));
    return new RetryLater(Require.notNull("reason", reason), delay);
  }

  /** {@return how long the row waits before it is due again} */
  public Duration delay() {
    return delay;
  }
}

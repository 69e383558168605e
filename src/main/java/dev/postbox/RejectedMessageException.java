package dev.postbox;

/**
 * Thrown by a {@link Transport} for a message it cannot send while the broker itself is fine (no
 * route, unknown topic, rejected by a schema check), or by a {@link JobHandler} for a job it cannot
 * run. It is never taken as a sign of a broker outage.
 *
 * <p>A rejection made with a constructor counts as an attempt (the row is retried with backoff and
 * parked after its last attempt); one made with {@link #permanent} parks the row at once. Thrown
 * like any exception, from any thread; in a {@link BatchTransport#sendBatch}, name the envelope
 * with {@link BatchSendException#fail} and the rejection as its cause. Guide: {@code
 * docs/operations.md#parked-rows}.
 */
public class RejectedMessageException extends PostboxException {
  private static final long serialVersionUID = 1L;

  private final boolean permanent;

  /**
   * A rejection with {@code message}; the attempt counts and the row is retried.
   *
   * @param message why the message cannot be sent
   */
  public RejectedMessageException(String message) {
    this(message, null, false);
  }

  /**
   * A rejection with {@code message}, caused by {@code cause}; the attempt counts and the row is
   * retried.
   *
   * @param message why the message cannot be sent
   * @param cause the broker client's error
   */
  public RejectedMessageException(String message, Throwable cause) {
    this(message, cause, false);
  }

  /**
   * A rejection with {@code message}, caused by {@code cause} (may be null), which parks the row at
   * once if {@code permanent}; for subclasses.
   *
   * @param message why the message cannot be sent
   * @param cause the broker client's error, or null
   * @param permanent true if no retry can help: the row is parked at once
   */
  protected RejectedMessageException(String message, Throwable cause, boolean permanent) {
    super(message, cause);
    this.permanent = permanent;
  }

  /**
   * A rejection that parks the row at once: no retry can help.
   *
   * @param reason why the message can never be sent (or the job never run); stored as the row's
   *     last error, so it must not hold secrets
   * @return the rejection, to throw
   */
  public static RejectedMessageException permanent(String reason) {
    return new RejectedMessageException(reason, null, true);
  }

  /**
   * A rejection that parks the row at once, caused by {@code cause}.
   *
   * @param reason why the message can never be sent (or the job never run)
   * @param cause the error behind it
   * @return the rejection, to throw
   */
  public static RejectedMessageException permanent(String reason, Throwable cause) {
    return new RejectedMessageException(reason, cause, true);
  }

  /**
   * {@return whether this rejection parks the row at once: true if made by {@link #permanent},
   * false if the row is retried}
   */
  public boolean isPermanent() {
    return permanent;
  }
}

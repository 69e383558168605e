package dev.postbox;

/**
 * Thrown by a {@link Transport} for a message it cannot send while the broker itself is fine (no
 * route, unknown topic, rejected by a schema check). The attempt always counts, so the message is
 * parked after its last attempt; it is never taken as a sign of a broker outage.
 */
public class RejectedMessageException extends PostboxException {
  private static final long serialVersionUID = 1L;

  /**
   * A rejection with {@code message}.
   *
   * @param message why the message cannot be sent
   */
  public RejectedMessageException(String message) {
    super(message);
  }

  /**
   * A rejection with {@code message}, caused by {@code cause}.
   *
   * @param message why the message cannot be sent
   * @param cause the broker client's error
   */
  public RejectedMessageException(String message, Throwable cause) {
    super(message, cause);
  }
}

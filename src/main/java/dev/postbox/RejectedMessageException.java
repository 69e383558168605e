package dev.postbox;

/**
 * Thrown by a {@link Transport} for a message it cannot send while the broker itself is fine (no
 * route, unknown topic, rejected by a schema check). The attempt always counts, so the message is
 * parked after its last attempt; it is never taken as a sign of a broker outage.
 */
public class RejectedMessageException extends PostboxException {
  private static final long serialVersionUID = 1L;

  public RejectedMessageException(String message) {
    super(message);
  }

  public RejectedMessageException(String message, Throwable cause) {
    super(message, cause);
  }
}

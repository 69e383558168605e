package dev.postbox;

/**
 * The root of every exception Postbox throws; unchecked.
 *
 * <p>A {@link java.sql.SQLException} is wrapped once, at the JDBC boundary, and kept as the cause.
 * Messages name ids, topics and sizes but never payloads or header values.
 */
public class PostboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PostboxException(String message) {
    super(message);
  }

  public PostboxException(String message, Throwable cause) {
    super(message, cause);
  }
}

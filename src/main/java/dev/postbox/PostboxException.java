package dev.postbox;

/**
 * The root of every exception Postbox throws; unchecked.
 *
 * <p>A {@link java.sql.SQLException} is wrapped once, at the JDBC boundary, and kept as the cause.
 * Messages name ids, topics and sizes but never payloads or header values. Thrown from a method
 * that runs on the caller's connection, it leaves the caller's transaction to the caller: Postbox
 * never rolls it back.
 */
public class PostboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with {@code message}.
   *
   * @param message what went wrong
   */
  public PostboxException(String message) {
    super(message);
  }

  /**
   * An exception with {@code message}, caused by {@code cause}.
   *
   * @param message what went wrong
   * @param cause the underlying failure, such as a {@link java.sql.SQLException}
   */
  public PostboxException(String message, Throwable cause) {
    super(message, cause);
  }
}

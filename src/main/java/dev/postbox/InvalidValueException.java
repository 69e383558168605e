package dev.postbox;

/**
 * Thrown when a value given to Postbox breaks a rule: a topic, event id, payload, header, option or
 * table name. Thrown before any SQL runs, so nothing is written.
 *
 * <p>The message names the field, what is wrong and the limit; {@link #field()} names the field.
 */
public final class InvalidValueException extends PostboxException {
  private static final long serialVersionUID = 1L;

  /** The name of the offending field or option. */
  private final String field;

  /**
   * An exception whose message is {@code field} followed by {@code problem}.
   *
   * @param field the name of the offending field or option
   * @param problem what is wrong and the limit, e.g. {@code "must be 1 to 200 characters"}
   */
  public InvalidValueException(String field, String problem) {
    super(field + " " + problem);
    this.field = field;
  }

  /**
   * {@return the name of the offending field or option, e.g. {@code "topic"} or {@code
   * "batchSize"}}
   */
  public String field() {
    return field;
  }
}

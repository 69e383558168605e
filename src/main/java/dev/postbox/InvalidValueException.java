package dev.postbox;

/**
 * Thrown when a value given to Postbox breaks a rule: a topic, event id, payload, header, option or
 * table name. Thrown before any SQL runs, so nothing is written.
 *
 * <p>The message names the field, what is wrong and the limit; {@link #field()} names the field.
 */
public final class InvalidValueException extends PostboxException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public InvalidValueException(String field, String problem) {
    super(field + " " + problem);
    this.field = field;
  }

  /** The name of the offending field or option, e.g. {@code "topic"} or {@code "batchSize"}. */
  public String field() {
    return field;
  }
}

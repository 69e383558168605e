package dev.postbox.internal;

import dev.postbox.InvalidValueException;
import java.time.Duration;

/** Argument checks whose messages name the option, the value and the limit. */
public final class Require {
  private Require() {}

  public static int between(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new InvalidValueException(
          name, "must be between " + min + " and " + max + " but was " + value);
    }
    return value;
  }

  public static Duration between(String name, Duration value, Duration min, Duration max) {
    notNull(name, value);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new InvalidValueException(
          name, "must be between " + min + " and " + max + " but was " + value);
    }
    return value;
  }

  public static <T> T notNull(String name, T value) {
    if (value == null) {
      throw new InvalidValueException(name, "must not be null");
    }
    return value;
  }
}

package dev.postbox.internal;

import dev.postbox.InvalidValueException;
import dev.postbox.internal.jdbc.Text;
import java.util.regex.Pattern;

/** Validates table names from configuration before they are ever put into SQL. */
public final class Identifiers {
  private static final Pattern PART = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  private Identifiers() {}

  /**
   * Returns {@code name} if it is {@code table} or {@code schema.table}, each part matching {@code
   * [A-Za-z_][A-Za-z0-9_]*} and at most 63 characters; otherwise throws naming {@code option}.
   */
  public static String tableName(String option, String name) {
    String[] parts = Require.notNull(option, name).split("\\.", -1);
    if (parts.length > 2) {
      throw new InvalidValueException(
          option, "must be 'table' or 'schema.table' but has " + parts.length + " parts");
    }
    for (String part : parts) {
      if (!PART.matcher(part).matches()) {
        throw new InvalidValueException(
            option,
            "must be 'table' or 'schema.table', each part 1-63 characters of letters, digits and _"
                + " starting with a letter or _ (was "
                + Text.describe(name)
                + ")");
      }
    }
    return name;
  }

  /**
   * {@link #tableName}, with room in its table part for the longest {@code suffix} of the tables
   * Postbox names after it ({@code <table>_dispatchers}, {@code <table>_schedules}): 63 characters
   * in all, the longest identifier PostgreSQL keeps whole.
   */
  public static String tableName(String option, String name, String suffix) {
    tableName(option, name);
    String table = name.substring(name.lastIndexOf('.') + 1);
    int max = 63 - suffix.length();
    if (table.length() > max) {
      throw new InvalidValueException(
          option,
          "must have a table part of at most "
              + max
              + " characters, so that "
              + table
              + suffix
              + " fits in 63 (was "
              + table.length()
              + ")");
    }
    return name;
  }
}

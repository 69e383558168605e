package dev.postbox.reliability;

/** The two sizes of every scenario: short (CI, {@code mvn verify}) and long ({@code -Plong}). */
enum Profile {
  SHORT,
  LONG;

  int pick(int shortValue, int longValue) {
    return this == SHORT ? shortValue : longValue;
  }

  long pick(long shortValue, long longValue) {
    return this == SHORT ? shortValue : longValue;
  }

  String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}

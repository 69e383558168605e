package dev.postbox.internal;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Generates time-ordered event ids: UUIDv7 (RFC 9562), 48-bit millisecond clock then random bits.
 */
public final class Ids {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Ids() {}

  public static String uuidV7() {
    long millis = System.currentTimeMillis();
    long randA = RANDOM.nextLong();
    long randB = RANDOM.nextLong();
    long high = (millis << 16) | 0x7000L | (randA & 0x0fffL);
    long low = (randB & 0x3fffffffffffffffL) | 0x8000000000000000L;
    return new UUID(high, low).toString();
  }
}

package dev.postbox.internal;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Generates time-ordered event ids: UUIDv7 (RFC 9562), 48-bit millisecond clock then 74 random
 * bits. Ids must be unique, not unguessable, so the bits come from ThreadLocalRandom: SecureRandom
 * would put a lock (and, on JDK 21, a pinned virtual thread) on every add.
 */
public final class Ids {
  private Ids() {}

  public static String uuidV7() {
    long millis = System.currentTimeMillis();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long randA = random.nextLong();
    long randB = random.nextLong();
    long high = (millis << 16) | 0x7000L | (randA & 0x0fffL);
    long low = (randB & 0x3fffffffffffffffL) | 0x8000000000000000L;
    return new UUID(high, low).toString();
  }
}

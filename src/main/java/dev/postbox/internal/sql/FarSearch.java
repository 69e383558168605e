package dev.postbox.internal.sql;

/**
 * Paces the claim's search for heads past its window ({@link KeyOrder#window}): at most once a
 * second per claim strategy. A windowed claim that finds no head is common and cheap to repeat
 * while every key in the window has its head in flight (a backlog of few keys); the search past it
 * reads every waiting row and is only needed for a key whose head sits behind more waiting rows
 * than the window, which then waits up to a second longer. One per claim strategy, called by its
 * lane's claim loop; thread-safe.
 */
final class FarSearch {
  private static final long EVERY_NANOS = 1_000_000_000L;
  private volatile long notBefore = System.nanoTime();

  /** Whether a claim that found no head in its window may search past it now. */
  boolean allowed() {
    long now = System.nanoTime();
    if (now - notBefore < 0) {
      return false;
    }
    notBefore = now + EVERY_NANOS;
    return true;
  }
}

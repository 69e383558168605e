package dev.postbox.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.Envelope;
import java.sql.Connection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A consumer's handler that applies {@code effects} and checks per-key order: events are {@code
 * <key>-<seq>}, and the inbox lets each through once, so the next event a key applies must be its
 * {@code seq + 1}; anything else is an inversion.
 */
public final class KeySequenceCheck implements InboxHandler {
  private final InboxHandler effects;
  private final Map<String, Integer> lastApplied = new ConcurrentHashMap<>();
  private final AtomicInteger inversions = new AtomicInteger();

  public KeySequenceCheck(InboxHandler effects) {
    this.effects = effects;
  }

  @Override
  public void handle(Connection tx, Envelope envelope) throws Exception {
    effects.handle(tx, envelope);
    int seq = Integer.parseInt(envelope.eventId().substring(envelope.key().length() + 1));
    Integer last = lastApplied.put(envelope.key(), seq);
    if (seq != (last == null ? 0 : last + 1)) {
      inversions.incrementAndGet();
    }
  }

  public int inversions() {
    return inversions.get();
  }

  /**
   * No inversion, every one of {@code keys} seen, each ending with its event {@code perKey - 1}.
   */
  public void assertInOrder(int keys, int perKey, String where) {
    assertEquals(0, inversions.get(), "per-key inversions at the " + where);
    assertEquals(keys, lastApplied.size(), "keys seen");
    for (Integer last : lastApplied.values()) {
      assertEquals(perKey - 1, last, "each key's last event applied last");
    }
  }
}

package dev.postbox.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Checks per-key order on the transport side. Given each key's messages in commit order, it counts
 * an inversion whenever a message of a key is sent for the first time while an earlier message of
 * the key has not been sent successfully yet, and an overlap whenever two sends of one key run at
 * the same time. Re-sending a message already sent (at-least-once) is neither. Thread-safe.
 */
public final class KeyOrderChecker {
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, List<String>> expected = new HashMap<>(); // key -> ids, commit order
  private final Map<String, String> keyOf = new HashMap<>();
  private final Set<String> sent = new HashSet<>(); // sent at least once, successfully
  private final Set<String> tried = new HashSet<>(); // sent at least once, any outcome
  private final Map<String, Integer> inFlight = new HashMap<>();
  private final List<String> firstSends = new ArrayList<>();
  private int inversions;
  private int overlaps;

  /** Declares that {@code eventId} of {@code key} committed after the key's earlier ones. */
  public void committed(String key, String eventId) {
    lock.lock();
    try {
      expected.computeIfAbsent(key, k -> new ArrayList<>()).add(eventId);
      keyOf.put(eventId, key);
    } finally {
      lock.unlock();
    }
  }

  /** A send of {@code eventId} starts. */
  public void sending(String eventId) {
    lock.lock();
    try {
      String key = keyOf.get(eventId);
      if (key == null) {
        return;
      }
      int running = inFlight.merge(key, 1, Integer::sum);
      if (running > 1) {
        overlaps++;
      }
      if (tried.add(eventId)) {
        firstSends.add(eventId);
        for (String earlier : expected.get(key)) {
          if (earlier.equals(eventId)) {
            break;
          }
          if (!sent.contains(earlier)) {
            inversions++;
            break;
          }
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** The send of {@code eventId} ended; {@code ok} if it succeeded. */
  public void sent(String eventId, boolean ok) {
    lock.lock();
    try {
      String key = keyOf.get(eventId);
      if (key == null) {
        return;
      }
      inFlight.merge(key, -1, Integer::sum);
      if (ok) {
        sent.add(eventId);
      }
    } finally {
      lock.unlock();
    }
  }

  public int inversions() {
    lock.lock();
    try {
      return inversions;
    } finally {
      lock.unlock();
    }
  }

  public int overlaps() {
    lock.lock();
    try {
      return overlaps;
    } finally {
      lock.unlock();
    }
  }

  /** Messages sent successfully at least once. */
  public int delivered() {
    lock.lock();
    try {
      return sent.size();
    } finally {
      lock.unlock();
    }
  }

  /** Event ids of {@code key} in the order they were first sent. */
  public List<String> firstSends(String key) {
    lock.lock();
    try {
      List<String> ids = new ArrayList<>();
      for (String id : firstSends) {
        if (key.equals(keyOf.get(id))) {
          ids.add(id);
        }
      }
      return ids;
    } finally {
      lock.unlock();
    }
  }
}

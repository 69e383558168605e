package dev.postbox.internal.sql;

import java.util.Map;

/**
 * The concurrency limits of a job table, as {@code Jobs.Builder} declared them: a job of a limited
 * name or with a group waits for admission ({@link Admission}) before a claim may take it.
 * Immutable and thread-safe.
 *
 * @param perName the most jobs of each limited name admitted at once
 * @param perGroup the most jobs of one group admitted at once; 0 for no limit
 */
public record Limits(Map<String, Integer> perName, int perGroup) {
  /** No limit: only grouped jobs wait for admission, to be claimed fairly. */
  public static final Limits NONE = new Limits(Map.of(), 0);

  public Limits {
    perName = Map.copyOf(perName);
  }

  /** Whether a job named {@code name} in {@code group} (null for none) waits for admission. */
  public boolean gated(String name, String group) {
    return group != null || perName.containsKey(name);
  }
}

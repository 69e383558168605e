package dev.postbox.internal.lane;

import dev.postbox.Backoff;
import dev.postbox.Listener;
import dev.postbox.internal.sql.Claimed;
import java.time.Duration;

/** Lane settings and claimed rows for the engine's unit tests. */
final class TestLanes {
  static final Duration POLL = Duration.ofMillis(100);

  private TestLanes() {}

  /** Settings of a lane polling every {@link #POLL}, 5 attempts, backoff 10 ms. */
  static LaneSettings settings(boolean detectOutage, Listener listener) {
    return new LaneSettings(
        "test",
        10,
        1,
        1,
        POLL,
        Duration.ofSeconds(30),
        5,
        Backoff.fixed(Duration.ofMillis(10)),
        Duration.ZERO,
        Duration.ofMinutes(1),
        0,
        detectOutage,
        Duration.ofSeconds(1),
        listener);
  }

  static LaneSettings settings() {
    return settings(true, new Listener() {});
  }

  /** Row {@code id} at attempt {@code attempt}, with a last error if {@code failedBefore}. */
  static Claimed<String> row(long id, int attempt, boolean failedBefore) {
    return new Claimed<>(
        id, attempt, attempt, 0, "e" + id, "t", "x", null, null, null, failedBefore, true);
  }
}

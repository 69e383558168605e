package dev.postbox.testing;

import dev.postbox.Backoff;
import dev.postbox.Dispatcher;
import java.time.Duration;
import javax.sql.DataSource;

/** The dispatcher settings of the broker end-to-end tests and benchmarks. */
public final class EndToEndDispatcher {
  private EndToEndDispatcher() {}

  /**
   * Claims of 100, 32 sends at once, a 50 ms poll, 200 ms backoff, 10 s to shut down, and {@code
   * lease}: how long a killed dispatcher's rows wait before another dispatcher takes them.
   */
  public static Dispatcher.Builder settings(DataSource ds, Duration lease) {
    return Dispatcher.builder(ds)
        .batchSize(100)
        .concurrency(32)
        .pollInterval(Duration.ofMillis(50))
        .backoff(Backoff.fixed(Duration.ofMillis(200)))
        .lease(lease)
        .shutdownTimeout(Duration.ofSeconds(10));
  }
}

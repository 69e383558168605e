package dev.postbox;

import dev.postbox.internal.lane.Deliverer;
import dev.postbox.internal.lane.ParkNow;
import dev.postbox.internal.lane.TimeLimit;
import java.time.Duration;
import java.util.Map;

/** How the job lane hands claimed jobs to the {@link JobHandler} registered for their name. */
final class JobDelivery {
  private JobDelivery() {}

  /**
   * Runs each job with its handler. The lane claims only names that have one ({@link
   * JobNames#claimedBy}); a job without one would be parked with that reason.
   */
  static Deliverer<JobContext> to(Map<String, JobHandler> handlers, String instanceId) {
    return row -> {
      JobHandler handler = handlers.get(row.item().name());
      if (handler == null) {
        throw new ParkNow(
            "no handler for job name '"
                + row.item().name()
                + "' on "
                + instanceId
                + " (registered: "
                + handlers.keySet()
                + ")");
      }
      handler.execute(row.item());
    };
  }

  /**
   * How long an attempt of each job may run: its handler's own timeout (or none), else {@code
   * queueTimeout} (null: none); a job whose name has no handler is parked at once, without one.
   */
  static TimeLimit<JobContext> timeLimit(Map<String, JobHandler> handlers, Duration queueTimeout) {
    return new TimeLimit<>(
        "job",
        row -> {
          JobHandler handler = row.item() == null ? null : handlers.get(row.item().name());
          return handler == null ? null : TimedJobHandler.timeoutOf(handler, queueTimeout);
        });
  }
}

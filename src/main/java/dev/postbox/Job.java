package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import java.time.Duration;

/**
 * A durable job to enqueue: a handler name, a payload, and optionally a delay, its own attempt
 * limit and a dedupe key.
 *
 * <p>Immutable and thread-safe: each method returns a new job. Values are validated when set; the
 * payload's size is checked against the job queue's limit when it is enqueued.
 */
public final class Job {
  private final String name;
  private final String payload;
  private final Duration delay;
  private final int maxAttempts;
  private final String dedupeKey;

  private Job(String name, String payload, Duration delay, int maxAttempts, String dedupeKey) {
    this.name = name;
    this.payload = payload;
    this.delay = delay;
    this.maxAttempts = maxAttempts;
    this.dedupeKey = dedupeKey;
  }

  /**
   * A job for the handler called {@code name} (1-200 letters, digits, '.', '_', '-', starting with
   * a letter or digit) with {@code payload} (text, usually JSON).
   */
  public static Job of(String name, String payload) {
    Rules.name("name", name);
    if (payload == null) {
      throw new InvalidValueException("payload", "must not be null");
    }
    return new Job(name, payload, Duration.ZERO, 0, null);
  }

  /**
   * This job, not to run before {@code delay} has passed by the database clock (0 to 3650 days).
   */
  public Job delay(Duration delay) {
    Require.between("delay", delay, Duration.ZERO, Duration.ofDays(3650));
    return new Job(name, payload, delay, maxAttempts, dedupeKey);
  }

  /** This job with its own attempt limit (1 to 1,000) instead of the job queue's default. */
  public Job maxAttempts(int maxAttempts) {
    Require.between("maxAttempts", maxAttempts, 1, 1_000);
    return new Job(name, payload, delay, maxAttempts, dedupeKey);
  }

  /**
   * This job with a dedupe key (1-128 characters, no control characters, no leading or trailing
   * whitespace): enqueueing a job whose key belongs to a job not yet finished is a no-op. Once the
   * job finishes the key is free again.
   */
  public Job dedupeKey(String dedupeKey) {
    return new Job(name, payload, delay, maxAttempts, Rules.eventId("dedupeKey", dedupeKey));
  }

  public String name() {
    return name;
  }

  public String payload() {
    return payload;
  }

  public Duration delay() {
    return delay;
  }

  /** The job's own attempt limit, or 0 for the job queue's default. */
  public int maxAttempts() {
    return maxAttempts;
  }

  public String dedupeKey() {
    return dedupeKey;
  }

  @Override
  public String toString() {
    return "Job[name="
        + name
        + ", dedupeKey="
        + dedupeKey
        + ", delay="
        + delay
        + ", payload="
        + payload.length()
        + " chars]";
  }
}

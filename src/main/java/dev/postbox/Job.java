package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import java.time.Duration;

/**
 * A durable job to enqueue: a handler name, a payload, and optionally a delay, its own attempt
 * limit and a dedupe key.
 *
 * <p>Immutable and thread-safe: each method returns a new job. Values are validated when set; the
 * payload's size is checked against the job queue's limit when it is enqueued. Guide: {@code
 * docs/jobs.md}.
 */
public final class Job {
  private final String name;
  private final String payload;
  private final Duration delay;
  private final int maxAttempts;
  private final String dedupeKey;
  private final String group;

  private Job(
      String name,
      String payload,
      Duration delay,
      int maxAttempts,
      String dedupeKey,
      String group) {
    this.name = name;
    this.payload = payload;
    this.delay = delay;
    this.maxAttempts = maxAttempts;
    this.dedupeKey = dedupeKey;
    this.group = group;
  }

  /**
   * A job for the handler called {@code name} (1-200 letters, digits, '.', '_', '-', starting with
   * a letter or digit) with {@code payload} (text, usually JSON).
   *
   * @param name the job name, the {@link JobHandler#name()} of its handler
   * @param payload the payload; its size and a NUL character are checked when it is enqueued
   * @return the job: due at once, with the job queue's attempt limit and no dedupe key
   * @throws InvalidValueException if the name breaks the rules or the payload is null
   */
  public static Job of(String name, String payload) {
    Rules.name("name", name);
    return new Job(name, Require.notNull("payload", payload), Duration.ZERO, 0, null, null);
  }

  /**
   * This job, not to run before {@code delay} has passed by the database clock (0 to 3650 days),
   * counted from the enqueue.
   *
   * @param delay the delay
   * @return a copy of this job with that delay
   * @throws InvalidValueException if the delay is null or out of range
   */
  public Job delay(Duration delay) {
    Require.between("delay", delay, Duration.ZERO, Duration.ofDays(3650));
    return new Job(name, payload, delay, maxAttempts, dedupeKey, group);
  }

  /**
   * This job with its own attempt limit (1 to 1,000) instead of the job queue's default.
   *
   * @param maxAttempts the attempts the job gets before it is parked
   * @return a copy of this job with that limit
   * @throws InvalidValueException if the limit is out of range
   */
  public Job maxAttempts(int maxAttempts) {
    Require.between("maxAttempts", maxAttempts, 1, 1_000);
    return new Job(name, payload, delay, maxAttempts, dedupeKey, group);
  }

  /**
   * This job with a dedupe key (1-128 characters, no control characters, no leading or trailing
   * whitespace): enqueueing a job whose key a job not yet started holds is a no-op. A job that has
   * started (running, retrying or parked) still holds its key, but one follow-up job with the key
   * is accepted and runs after it ends; see {@link Jobs#enqueue}.
   *
   * @param dedupeKey the dedupe key
   * @return a copy of this job with that key
   * @throws InvalidValueException if the key breaks the rules
   */
  public Job dedupeKey(String dedupeKey) {
    return new Job(name, payload, delay, maxAttempts, Rules.eventId("dedupeKey", dedupeKey), group);
  }

  /**
   * This job in the group {@code group} (1-200 characters, no control characters, no leading or
   * trailing whitespace), usually a tenant or customer id: at most {@link
   * Jobs.Builder#limitPerGroup} jobs of one group run at once across every dispatcher, and a claim
   * shares its batch fairly between groups, so that a group with a large backlog does not hold up
   * the others. A grouped job waits for admission before it is claimed: {@code
   * docs/jobs.md#limits-and-groups}.
   *
   * @param group the group
   * @return a copy of this job in that group
   * @throws InvalidValueException if the group breaks the rules
   */
  public Job group(String group) {
    return new Job(
        name, payload, delay, maxAttempts, dedupeKey, Rules.id("group", group, Rules.MAX_NAME));
  }

  /** {@return the job name given to {@link #of}} */
  public String name() {
    return name;
  }

  /** {@return the payload given to {@link #of}} */
  public String payload() {
    return payload;
  }

  /** {@return the delay before the job may run, {@link Duration#ZERO} if none was set} */
  public Duration delay() {
    return delay;
  }

  /** {@return the job's own attempt limit, or 0 for the job queue's default} */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** {@return the dedupe key, or null if none was set} */
  public String dedupeKey() {
    return dedupeKey;
  }

  /** {@return the group, or null if none was set} */
  public String group() {
    return group;
  }

  @Override
  public String toString() {
    return "Job[name="
        + name
        + ", dedupeKey="
        + dedupeKey
        + (group == null ? "" : ", group=" + group)
        + ", delay="
        + delay
        + ", payload="
        + payload.length()
        + " chars]";
  }
}

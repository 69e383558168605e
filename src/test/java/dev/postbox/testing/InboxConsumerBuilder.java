package dev.postbox.testing;

import dev.postbox.Envelope;
import dev.postbox.Inbox;
import java.sql.Connection;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * What every broker consumer of the tests is configured with (the database it writes to, the inbox,
 * its name in the inbox, its handler) and how it applies one event at most once: {@link
 * Inbox#claim} and the handler in one JDBC transaction. Each broker's builder extends it with its
 * own options. Not thread-safe.
 *
 * @param <B> the broker's builder, returned by the setters so calls chain
 */
public abstract class InboxConsumerBuilder<B extends InboxConsumerBuilder<B>> {
  private final DataSource dataSource;
  private final Inbox inbox;
  private String name;
  private InboxHandler handler;
  private int parallelism = 1;
  private Duration failurePause = Duration.ofMillis(200);

  protected InboxConsumerBuilder(DataSource dataSource, Inbox inbox) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.inbox = Objects.requireNonNull(inbox, "inbox");
  }

  /**
   * This consumer's name in the inbox (one row per name and event): every consumer group that
   * applies its own side effects needs its own name.
   */
  public B name(String name) {
    this.name = Objects.requireNonNull(name, "name");
    return self();
  }

  public B handler(InboxHandler handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
    return self();
  }

  /** For the broker builder's setter named {@code option}: consumers in parallel, 1 to 64. */
  protected B parallelism(String option, int consumers) {
    this.parallelism = between(option, consumers, 1, 64);
    return self();
  }

  /** For the broker builder's setter named {@code option}: the pause after a failed event. */
  protected B failurePause(String option, Duration pause) {
    this.failurePause = Objects.requireNonNull(pause, option);
    return self();
  }

  /** How many consume in parallel, each handling one event at a time; default 1. */
  public int parallelism() {
    return parallelism;
  }

  /** How long to pause before a failed event comes again; default 200 ms. */
  public Duration failurePause() {
    return failurePause;
  }

  /** Sleeps {@link #failurePause()}: no hot loop while the database or the broker is down. */
  public void pauseAfterFailure() {
    try {
      Thread.sleep(failurePause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The name set with {@link #name(String)}. */
  public String inboxName() {
    return name;
  }

  /** Fails unless the name and the handler are set; for the broker builder's {@code build()}. */
  protected void requireNameAndHandler() {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(handler, "handler");
  }

  /**
   * Claims {@code envelope} in the inbox and, the first time, runs the handler, in one transaction;
   * true if it was the first time. A failure rolls back and is thrown.
   */
  public boolean applyOnce(Envelope envelope) throws Exception {
    try (Connection tx = dataSource.getConnection()) {
      tx.setAutoCommit(false);
      try {
        boolean first = inbox.claim(tx, name, envelope.eventId());
        if (first) {
          handler.handle(tx, envelope);
        }
        tx.commit();
        return first;
      } catch (Exception e) {
        tx.rollback();
        throw e;
      } finally {
        tx.setAutoCommit(true);
      }
    }
  }

  /**
   * {@code value} if it lies between {@code min} and {@code max}, else an exception that names the
   * option, the value and the limits.
   */
  protected static int between(String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          option + " must be between " + min + " and " + max + " but was " + value);
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }
}

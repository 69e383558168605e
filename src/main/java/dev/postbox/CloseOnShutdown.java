package dev.postbox;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM shutdown hook of a {@link BackgroundQueue} built with {@code closeOnShutdown(true)}: when
 * the JVM begins to exit (the last non-daemon thread ended, {@code System.exit}, SIGTERM) it closes
 * the queue, so the tasks accepted so far run for up to the drain timeout before the JVM halts, and
 * {@code close()} logs what completed and what was dropped. Without it the JVM would exit as soon
 * as {@code main} returns: task threads are virtual, hence daemon threads.
 *
 * <p>Thread-safe. The hook is a platform thread, so its wait pins no carrier; it calls the same
 * idempotent {@code close()} as the application, so a hook of the application's own that closes the
 * queue too just waits for whichever call came first. {@link #remove()} takes the hook out once the
 * application has closed the queue, so a closed queue leaves no hook (and no reference to itself)
 * behind.
 */
final class CloseOnShutdown {
  // Named after the public class: that is the name users see in their logs and configure.
  private static final Logger log = LoggerFactory.getLogger(BackgroundQueue.class);

  private final Thread hook;

  private CloseOnShutdown(Thread hook) {
    this.hook = hook;
  }

  /**
   * Registers a hook that closes the queue of {@code settings} by calling {@code close}; null if
   * the JVM is already shutting down (then nothing would run it).
   */
  static CloseOnShutdown register(BackgroundQueueSettings settings, Runnable close) {
    Thread hook =
        Thread.ofPlatform()
            .name(settings.name() + "-shutdown")
            .unstarted(
                () -> {
                  log.info(
                      "{} - JVM shutting down: closing, queued tasks run for up to {}",
                      settings.name(),
                      settings.drainTimeout());
                  close.run();
                });
    try {
      Runtime.getRuntime().addShutdownHook(hook);
      return new CloseOnShutdown(hook);
    } catch (IllegalStateException shuttingDown) {
      log.warn(
          "{} - built while the JVM shuts down: not closed on shutdown; close it yourself",
          settings.name());
      return null;
    }
  }

  /** Takes the hook out, after the application closed the queue; a no-op once the JVM exits. */
  void remove() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hooks are running (maybe this one, closing the queue): nothing left to take out
    }
  }
}

package dev.postbox.internal.background;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM shutdown hook of a background queue built with {@code closeOnShutdown(true)}: when the
 * JVM begins to exit it closes the queue, so the tasks accepted so far run for up to the drain
 * timeout (task threads are virtual, hence daemon threads: without it the JVM would exit at once).
 *
 * <p>Thread-safe. The hook is a platform thread, so its wait pins no carrier; it calls the same
 * idempotent {@code close()} as the application, so whichever call comes second waits for the
 * first.
 */
public final class CloseOnShutdown {
  // Named after the public class: that is the name users see in their logs and configure.
  private static final Logger log = LoggerFactory.getLogger("dev.postbox.BackgroundQueue");

  private final Thread hook;

  private CloseOnShutdown(Thread hook) {
    this.hook = hook;
  }

  /**
   * Registers a hook that closes the queue {@code name} by calling {@code close}; null if the JVM
   * is already shutting down (then nothing would run it).
   */
  public static CloseOnShutdown register(String name, Duration drainTimeout, Runnable close) {
    Thread hook =
        Thread.ofPlatform()
            .name(name + "-shutdown")
            .unstarted(
                () -> {
                  log.info(
                      "{} - JVM shutting down: closing, queued tasks run for up to {}",
                      name,
                      drainTimeout);
                  close.run();
                });
    try {
      Runtime.getRuntime().addShutdownHook(hook);
      return new CloseOnShutdown(hook);
    } catch (IllegalStateException shuttingDown) {
      log.warn(
          "{} - built while the JVM shuts down: not closed on shutdown; close it yourself", name);
      return null;
    }
  }

  /**
   * Takes the hook out once the application has closed the queue, so a closed queue leaves no hook
   * (and no reference to itself) behind; a no-op once the JVM exits.
   */
  public void remove() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hooks are running (maybe this one, closing the queue): nothing left to take out
    }
  }
}

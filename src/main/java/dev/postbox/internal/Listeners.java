package dev.postbox.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls user hooks so that a throwing listener never breaks the engine. */
final class Listeners {
  private static final Logger log = LoggerFactory.getLogger(Listeners.class);

  private Listeners() {}

  static void call(Runnable hook) {
    try {
      hook.run();
    } catch (RuntimeException e) {
      log.warn("listener threw; ignored", e);
    }
  }
}

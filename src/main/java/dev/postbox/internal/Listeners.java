package dev.postbox.internal;

import dev.postbox.Listener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls user hooks so that a throwing listener never breaks the engine. */
public final class Listeners {
  private static final Logger log = LoggerFactory.getLogger(Listeners.class);

  /** The listener of a dispatcher that was given none. */
  public static final Listener NONE = new Listener() {};

  private Listeners() {}

  /** Runs {@code hook}, logging and ignoring what it throws but a VirtualMachineError. */
  public static void call(Runnable hook) {
    try {
      hook.run();
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) { // an Error from a hook must not kill the thread that called it
      log.warn("listener threw; ignored", e);
    }
  }
}

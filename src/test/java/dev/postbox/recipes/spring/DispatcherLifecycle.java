package dev.postbox.recipes.spring;

import dev.postbox.Dispatcher;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link Dispatcher} when the application context is refreshed and closes it when the
 * context is closed.
 *
 * <p>Called by Spring's lifecycle processor, one call at a time. A {@link Dispatcher} cannot start
 * again once closed, so a context stopped with {@code context.stop()} cannot be started again.
 */
public final class DispatcherLifecycle implements SmartLifecycle {
  private final Dispatcher dispatcher;
  private volatile boolean running;

  public DispatcherLifecycle(Dispatcher dispatcher) {
    this.dispatcher = dispatcher;
  }

  @Override
  public void start() {
    dispatcher.start();
    running = true;
  }

  /**
   * Stops claiming, hands unstarted rows back and waits for running sends (its shutdownTimeout).
   */
  @Override
  public void stop() {
    running = false;
    dispatcher.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /**
   * The highest phase, as every {@link SmartLifecycle} has by default: started after the other
   * lifecycle beans (e.g. a broker client the transport uses) and stopped before them. All
   * lifecycle beans stop before any bean is destroyed, so the dispatcher is closed before the
   * context closes the {@code DataSource} (a pool's {@code close()} runs at destruction).
   */
  @Override
  public int getPhase() {
    return SmartLifecycle.DEFAULT_PHASE;
  }
}

package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@link Transport} that hands each message to the handler registered for its topic, in this
 * process: the outbox without a broker. A message whose topic has no handler fails with a {@link
 * RejectedMessageException} and is parked after its last attempt, never dropped.
 *
 * <p>Thread-safe and immutable once built; handlers are called concurrently from the dispatcher's
 * delivery threads, outside any transaction, at least once per message. Guide: {@code
 * docs/outbox.md#writing-a-transport}.
 */
public final class InProcessTransport implements Transport {

  /**
   * Handles the messages of one topic; throw to have the message retried.
   *
   * <p>Called on the dispatcher's delivery threads, concurrently, outside any transaction, at least
   * once per message: make it idempotent.
   */
  @FunctionalInterface
  public interface Handler {
    /**
     * Handles one message. As for {@link Transport#send}, a call still running after the
     * dispatcher's {@code sendTimeout} is interrupted and counts as a failed attempt, and the
     * dispatcher's {@code close()} interrupts a call still running after its {@code
     * shutdownTimeout}.
     *
     * @param envelope the message
     * @throws Exception to have the message retried with backoff, or parked after its last attempt
     */
    void handle(Envelope envelope) throws Exception;
  }

  private final Map<String, Handler> handlers;

  private InProcessTransport(Map<String, Handler> handlers) {
    this.handlers = Map.copyOf(handlers);
  }

  /** {@return a new builder with no handlers} */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void send(Envelope envelope) throws Exception {
    Handler handler = handlers.get(envelope.topic());
    if (handler == null) {
      throw new RejectedMessageException(
          "no in-process handler for topic '"
              + envelope.topic()
              + "' (registered: "
              + handlers.keySet()
              + ")");
    }
    handler.handle(envelope);
  }

  /** Registers handlers by topic. Not thread-safe. */
  public static final class Builder {
    private final Map<String, Handler> handlers = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Routes messages of {@code topic} to {@code handler}; one handler per topic.
     *
     * @param topic the topic, same rules as {@link Message#of}
     * @param handler the handler of its messages
     * @return this builder
     * @throws InvalidValueException if the topic breaks the rules or already has a handler, or the
     *     handler is null
     */
    public Builder on(String topic, Handler handler) {
      Rules.name("topic", topic);
      Require.notNull("handler", handler);
      if (handlers.putIfAbsent(topic, handler) != null) {
        throw new InvalidValueException("topic", "'" + topic + "' already has a handler");
      }
      return this;
    }

    /**
     * {@return a transport with the handlers registered so far, copied: later changes to this
     * builder change nothing built}
     */
    public InProcessTransport build() {
      return new InProcessTransport(handlers);
    }
  }
}

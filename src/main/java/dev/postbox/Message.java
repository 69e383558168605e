package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An event to add to the outbox: topic, payload, and optionally an event id, a key and headers.
 *
 * <p>Immutable and thread-safe: each method returns a new message. Every value is validated when it
 * is set; the payload's size is checked against the outbox's limit when it is added.
 */
public final class Message {
  private final String topic;
  private final String payload;
  private final String eventId;
  private final String key;
  private final Map<String, String> headers;

  private Message(
      String topic, String payload, String eventId, String key, Map<String, String> headers) {
    this.topic = topic;
    this.payload = payload;
    this.eventId = eventId;
    this.key = key;
    this.headers = headers;
  }

  /**
   * A message for {@code topic} (1-200 letters, digits, '.', '_', '-', starting with a letter or
   * digit) carrying {@code payload} (text, usually JSON).
   */
  public static Message of(String topic, String payload) {
    Rules.name("topic", topic);
    if (payload == null) {
      throw new InvalidValueException("payload", "must not be null");
    }
    return new Message(topic, payload, null, null, Map.of());
  }

  /**
   * This message with a stable event id (1-128 characters, no control characters, no leading or
   * trailing whitespace); adding an id that is already stored is a no-op. Without one, a
   * time-ordered UUIDv7 is generated at add time.
   */
  public Message eventId(String eventId) {
    return new Message(topic, payload, Rules.eventId("eventId", eventId), key, headers);
  }

  /**
   * This message with a partition or ordering key for the transport: 1-255 characters, no control
   * characters, no leading or trailing whitespace.
   */
  public Message key(String key) {
    return new Message(topic, payload, eventId, Rules.id("key", key, Rules.MAX_KEY), headers);
  }

  /** This message with one more header (at most 64 headers; names 128, values 8192 characters). */
  public Message header(String name, String value) {
    Rules.header(name, value);
    Map<String, String> copy = new LinkedHashMap<>(headers);
    copy.put(name, value);
    Rules.headerCount(copy.size());
    return new Message(topic, payload, eventId, key, Collections.unmodifiableMap(copy));
  }

  /** This message with {@code extra} headers added (later values win). */
  public Message headers(Map<String, String> extra) {
    Require.notNull("headers", extra);
    Map<String, String> copy = new LinkedHashMap<>(headers);
    extra.forEach(
        (name, value) -> {
          Rules.header(name, value);
          copy.put(name, value);
        });
    Rules.headerCount(copy.size());
    return new Message(topic, payload, eventId, key, Collections.unmodifiableMap(copy));
  }

  public String topic() {
    return topic;
  }

  public String payload() {
    return payload;
  }

  /** The caller's event id, or null if one will be generated at add time. */
  public String eventId() {
    return eventId;
  }

  public String key() {
    return key;
  }

  public Map<String, String> headers() {
    return headers;
  }

  @Override
  public String toString() {
    // never the payload or header values: they may hold secrets
    return "Message[topic="
        + topic
        + ", eventId="
        + eventId
        + ", payload="
        + payload.length()
        + " chars, headers="
        + headers.keySet()
        + "]";
  }
}

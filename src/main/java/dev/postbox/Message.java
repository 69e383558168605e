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
 * is set; the payload's size is checked against the outbox's limit when it is added. Guide: {@code
 * docs/outbox.md#messages}.
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
   *
   * @param topic the topic
   * @param payload the payload; its size and a NUL character are checked when it is added
   * @return the message, with no event id, key or headers
   * @throws InvalidValueException if the topic breaks the rules or the payload is null
   */
  public static Message of(String topic, String payload) {
    Rules.name("topic", topic);
    return new Message(topic, Require.notNull("payload", payload), null, null, Map.of());
  }

  /**
   * This message with a stable event id (1-128 characters, no control characters, no leading or
   * trailing whitespace); adding an id that is already stored is a no-op. Without one, a
   * time-ordered UUIDv7 is generated at add time.
   *
   * @param eventId the event id
   * @return a copy of this message with that event id
   * @throws InvalidValueException if the event id breaks the rules
   */
  public Message eventId(String eventId) {
    return new Message(topic, payload, Rules.eventId("eventId", eventId), key, headers);
  }

  /**
   * This message with a partition or ordering key for the transport: 1-255 characters, no control
   * characters, no leading or trailing whitespace.
   *
   * @param key the key
   * @return a copy of this message with that key
   * @throws InvalidValueException if the key breaks the rules
   */
  public Message key(String key) {
    return new Message(topic, payload, eventId, Rules.id("key", key, Rules.MAX_KEY), headers);
  }

  /**
   * This message with one more header (at most 64 headers; names 1-128 characters, values up to
   * 8192, neither with control characters). A header already set with that name is replaced.
   *
   * @param name the header's name
   * @param value the header's value
   * @return a copy of this message with the header
   * @throws InvalidValueException if the name or value breaks the rules, or there would be more
   *     than 64 headers
   */
  public Message header(String name, String value) {
    Rules.header(name, value);
    Map<String, String> copy = new LinkedHashMap<>(headers);
    copy.put(name, value);
    Rules.headerCount(copy.size());
    return new Message(topic, payload, eventId, key, Collections.unmodifiableMap(copy));
  }

  /**
   * This message with {@code extra} headers added (later values win), under the rules of {@link
   * #header}.
   *
   * @param extra the headers to add
   * @return a copy of this message with the headers
   * @throws InvalidValueException if {@code extra} is null, a name or value breaks the rules, or
   *     there would be more than 64 headers
   */
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

  /** {@return the topic given to {@link #of}} */
  public String topic() {
    return topic;
  }

  /** {@return the payload given to {@link #of}} */
  public String payload() {
    return payload;
  }

  /** {@return the caller's event id, or null if one will be generated at add time} */
  public String eventId() {
    return eventId;
  }

  /** {@return the partition or ordering key, or null if none was set} */
  public String key() {
    return key;
  }

  /**
   * {@return the headers set on this message (not those an outbox's header supplier adds): an
   * unmodifiable map, in the order the headers were first set; empty if none}
   */
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

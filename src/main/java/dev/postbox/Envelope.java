package dev.postbox;

import java.time.Instant;
import java.util.Map;

/**
 * A stored outbox message handed to a {@link Transport}: what was added, plus the delivery attempt.
 *
 * <p>Immutable and thread-safe as the dispatcher builds it (its headers map is unmodifiable). Built
 * from the row as claimed; the send it is given to runs outside any transaction. Guide: {@code
 * docs/outbox.md#writing-a-transport}.
 *
 * @param eventId the event id (the caller's or a generated UUIDv7); consumers dedupe on it
 * @param topic the topic
 * @param key the partition/ordering key, or null
 * @param payload the payload text
 * @param headers the headers, never null
 * @param attempt 1 for the first delivery attempt, 2 for the first retry, …
 * @param createdAt when the message was added, by the database clock
 */
public record Envelope(
    String eventId,
    String topic,
    String key,
    String payload,
    Map<String, String> headers,
    int attempt,
    Instant createdAt) {

  @Override
  public String toString() {
    return "Envelope[eventId=" + eventId + ", topic=" + topic + ", attempt=" + attempt + "]";
  }
}

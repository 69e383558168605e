package dev.postbox;

/**
 * A key whose delivery is stopped by a parked message ({@link OrderedParking#BLOCK_KEY}).
 *
 * <p>Immutable and thread-safe; a snapshot read on the caller's connection. Guide: {@code
 * docs/ordering.md#parked-messages}.
 *
 * @param key the message key
 * @param head the parked message at the head of the key, which must be replayed or discarded
 * @param waiting messages of the key waiting behind it
 */
public record BlockedKey(String key, Parked head, long waiting) {}

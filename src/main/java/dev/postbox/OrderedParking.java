package dev.postbox;

/**
 * What a parked message does to the later messages of its key when the outbox delivers in key order
 * ({@link Outbox.Builder#orderedByKey}). Other keys are never affected.
 *
 * <p>Immutable and thread-safe, as every enum. Set on the outbox; the dispatcher's claims apply it.
 * Guide: {@code docs/ordering.md#parked-messages}.
 */
public enum OrderedParking {
  /**
   * The parked message keeps its key blocked: later messages of the key wait, never attempted and
   * never parked because of it, until the parked message is replayed (it is then delivered first,
   * and the rest after it in order) or discarded. The default.
   */
  BLOCK_KEY,

  /** The parked message is set aside, and the later messages of its key go on in order. */
  SKIP
}

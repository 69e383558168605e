package dev.postbox;

import dev.postbox.internal.Require;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Thrown by {@link BatchTransport#sendBatch} to fail some envelopes of a batch: each one named with
 * {@link #fail} is retried with backoff (or parked after its last attempt) with its own cause
 * recorded, and the envelopes of the batch not named count as sent. One that names none of the
 * batch's envelopes fails the whole batch.
 *
 * <p>A cause that is a {@link RejectedMessageException} counts against its message only; a {@link
 * RejectedMessageException#permanent} one parks its message at once. When some envelopes of a batch
 * were sent, the failures of the others are never taken as a broker outage.
 *
 * <p>Thread-safe: broker callbacks may call {@link #fail} from their own threads before {@code
 * sendBatch} throws it. Guide: {@code docs/outbox.md#writing-a-transport}.
 */
public class BatchSendException extends PostboxException {
  private static final long serialVersionUID = 1L;

  // a lock, not synchronized: a virtual thread waiting for a monitor pins its carrier on JDK 21
  private final ReentrantLock lock = new ReentrantLock();

  /** The causes recorded by {@link #fail}, by event id; guarded by lock. */
  private final Map<String, Exception> failures = new LinkedHashMap<>();

  /** An exception that names no envelope yet; name the failed ones with {@link #fail}. */
  public BatchSendException() {
    super("some envelopes of the batch were not sent");
  }

  /**
   * Records that {@code envelope} was not sent because of {@code cause}. A second call for the same
   * event id replaces the cause.
   *
   * @param envelope an envelope of the batch that was not sent
   * @param cause why it was not sent
   * @return this exception, to chain calls or to throw it
   * @throws InvalidValueException if {@code envelope} or {@code cause} is null
   */
  public BatchSendException fail(Envelope envelope, Exception cause) {
    Require.notNull("envelope", envelope);
    if (cause == null) {
      throw new InvalidValueException("cause", "must not be null (envelope " + envelope + ")");
    }
    lock.lock();
    try {
      failures.put(envelope.eventId(), cause);
    } finally {
      lock.unlock();
    }
    return this;
  }

  /**
   * {@return a copy of the causes recorded so far, by event id, in the order they were first
   * recorded}
   */
  public Map<String, Exception> failures() {
    lock.lock();
    try {
      return new LinkedHashMap<>(failures);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String getMessage() {
    Map<String, Exception> failures = failures();
    if (failures.isEmpty()) {
      return super.getMessage() + " (none named)";
    }
    Map.Entry<String, Exception> first = failures.entrySet().iterator().next();
    return failures.size()
        + " envelope(s) of the batch not sent; first: eventId="
        + first.getKey()
        + ": "
        + first.getValue();
  }
}

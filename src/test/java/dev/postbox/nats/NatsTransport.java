package dev.postbox.nats;

import dev.postbox.BatchSendException;
import dev.postbox.BatchTransport;
import dev.postbox.Envelope;
import dev.postbox.RejectedMessageException;
import dev.postbox.Transport;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import io.nats.client.Message;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * A {@link Transport} that publishes outbox messages to a NATS JetStream stream: {@code
 * Nats-Msg-Id} = event id (the stream's duplicate window drops a re-send of a message it already
 * stored, and its {@link PublishAck#isDuplicate() duplicate ack} counts as sent), the envelope's
 * headers as NATS headers plus {@code postbox-event-id}, {@code postbox-topic}, {@code postbox-key}
 * and {@code postbox-attempt}, and a send that returns only once the stream acked.
 *
 * <p>Thread-safe: the dispatcher calls {@link #send} from many virtual threads at once over the one
 * connection the caller owns. Build that connection with {@code reconnectBufferSize(0)} and {@code
 * maxReconnects(-1)} (see {@link NatsServer#options}): while it is disconnected a publish fails at
 * once, and an ack not received within {@code ackTimeout} fails the send, so the dispatcher sees an
 * outage and probes instead of hanging. A message the server refuses while it is fine (no stream
 * takes its subject, larger than the stream or server allows, a header NATS cannot carry) fails
 * with a {@link RejectedMessageException} and is parked after its last attempt.
 */
public final class NatsTransport implements Transport {
  static final String EVENT_ID = "postbox-event-id";
  static final String TOPIC = "postbox-topic";
  static final String KEY = "postbox-key";
  static final String ATTEMPT = "postbox-attempt";
  static final String CREATED_AT = "postbox-created-at";
  static final String MSG_ID = "Nats-Msg-Id";

  private final Connection connection;
  private final JetStream jetStream;
  private final Function<Envelope, String> subject;
  private final Duration ackTimeout;
  private final LongAdder duplicates = new LongAdder();

  private NatsTransport(Connection connection, Function<Envelope, String> subject, Duration ack)
      throws IOException {
    this.connection = connection;
    this.subject = subject;
    this.ackTimeout = ack;
    this.jetStream = connection.jetStream(JetStreamOptions.builder().requestTimeout(ack).build());
  }

  /**
   * Publishes over {@code connection} to {@code subject.apply(envelope)}; a stream must take that
   * subject. Waits up to {@code ackTimeout} for each ack.
   */
  public static NatsTransport create(
      Connection connection, Function<Envelope, String> subject, Duration ackTimeout)
      throws IOException {
    return new NatsTransport(
        Objects.requireNonNull(connection, "connection"),
        Objects.requireNonNull(subject, "subject"),
        Objects.requireNonNull(ackTimeout, "ackTimeout"));
  }

  /**
   * The subject {@code prefix.<n>} with n = the key's hash modulo {@code partitions} (0 without a
   * key): every message of a key goes to one subject, whose strictly ordered consumer then sees
   * them in the order the dispatcher sent them.
   */
  public static Function<Envelope, String> keyPartitioned(String prefix, int partitions) {
    return e ->
        prefix + "." + (e.key() == null ? 0 : Math.floorMod(e.key().hashCode(), partitions));
  }

  /** Re-sends the stream recognised by their {@code Nats-Msg-Id} and did not store again. */
  public long duplicates() {
    return duplicates.sum();
  }

  @Override
  public void send(Envelope envelope) throws Exception {
    try {
      acked(jetStream.publish(message(envelope), options(envelope)));
    } catch (JetStreamApiException | IOException | IllegalArgumentException e) {
      throw classified(envelope, e);
    }
  }

  /**
   * This transport taking whole claims: every envelope of a batch is published asynchronously, then
   * all acks are awaited together; only the envelopes whose ack failed are named in a {@link
   * BatchSendException}. On an outbox ordered by key, a key's next envelope is published only once
   * the one before it was acked, so a failure never lets a later message of its key through.
   */
  public BatchTransport batching() {
    return new BatchTransport() {
      @Override
      public void send(Envelope envelope) throws Exception {
        NatsTransport.this.send(envelope);
      }

      @Override
      public void sendBatch(List<Envelope> batch) throws Exception {
        publishAll(batch);
      }
    };
  }

  private void publishAll(List<Envelope> batch) throws Exception {
    BatchSendException failures = new BatchSendException();
    Set<String> failedKeys = new HashSet<>();
    List<Envelope> rest = batch;
    Exception firstFailure = null;
    int rejected = 0;
    while (!rest.isEmpty()) {
      // a round: the first envelope of each key not sent yet, and every envelope without a key
      List<Envelope> round = new ArrayList<>();
      List<Envelope> later = new ArrayList<>();
      Set<String> inRound = new HashSet<>();
      for (Envelope e : rest) {
        if (e.key() != null && failedKeys.contains(e.key())) {
          failures.fail(e, new IOException("not sent: an earlier message of its key failed"));
        } else if (e.key() == null || inRound.add(e.key())) {
          round.add(e);
        } else {
          later.add(e);
        }
      }
      List<CompletableFuture<PublishAck>> acks = new ArrayList<>(round.size());
      for (Envelope e : round) {
        try {
          acks.add(jetStream.publishAsync(message(e), options(e)));
        } catch (RuntimeException x) { // disconnected (no reconnect buffer), or not publishable
          acks.add(CompletableFuture.failedFuture(x));
        }
      }
      long deadline = System.nanoTime() + ackTimeout.toNanos();
      for (int i = 0; i < round.size(); i++) {
        Exception failed = awaitAck(round.get(i), acks.get(i), deadline);
        if (failed != null) {
          failures.fail(round.get(i), failed);
          firstFailure = firstFailure == null ? failed : firstFailure;
          rejected += failed instanceof RejectedMessageException ? 1 : 0;
          if (round.get(i).key() != null) {
            failedKeys.add(round.get(i).key());
          }
        }
      }
      rest = later;
    }
    int failed = failures.failures().size();
    if (failed == batch.size() && rejected == 0) {
      throw firstFailure; // nothing got through: the dispatcher judges it as a possible outage
    }
    if (failed > 0) {
      throw failures;
    }
  }

  /** Null once {@code ack} arrived before {@code deadline}; else why the envelope failed. */
  private Exception awaitAck(Envelope e, CompletableFuture<PublishAck> ack, long deadline)
      throws InterruptedException {
    try {
      acked(ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      return null;
    } catch (TimeoutException x) {
      ack.cancel(false);
      return new TimeoutException("no JetStream ack for " + e.eventId() + " within " + ackTimeout);
    } catch (ExecutionException x) {
      Throwable cause = x.getCause();
      // jnats wraps the publish's exception in a RuntimeException
      if (cause instanceof RuntimeException r && r.getCause() instanceof Exception inner) {
        cause = inner;
      }
      return cause instanceof Exception c ? classified(e, c) : x;
    }
  }

  private void acked(PublishAck ack) {
    if (ack.isDuplicate()) {
      duplicates.increment(); // stored before (an ack that was lost, a crash before the delete)
    }
  }

  /** The exception to throw for {@code e}: a rejection if the message can never be stored. */
  private Exception classified(Envelope envelope, Exception e) {
    if (e instanceof IllegalArgumentException) { // larger than max_payload, a header NATS refuses
      return new RejectedMessageException("NATS cannot publish " + envelope.eventId(), e);
    }
    if (e instanceof JetStreamApiException api && api.getApiErrorCode() == 10054) {
      return new RejectedMessageException("larger than the stream's max_msg_size", e);
    }
    if (e instanceof IOException && String.valueOf(e.getMessage()).contains("503")) {
      // no responders: no stream listens on the subject, or JetStream is not up; ask which
      String to = subject.apply(envelope);
      try {
        if (connection.jetStreamManagement().getStreamNames(to).isEmpty()) {
          return new RejectedMessageException("no JetStream stream takes subject " + to, e);
        }
      } catch (IOException | JetStreamApiException | RuntimeException unknown) {
        return e; // JetStream did not answer: an outage, retried
      }
    }
    return e;
  }

  /** The NATS message for {@code e}: payload as UTF-8, envelope headers plus Postbox's own. */
  static Message message(Envelope e, String subject) {
    Headers headers = new Headers();
    e.headers().forEach(headers::put);
    headers.put(EVENT_ID, e.eventId());
    headers.put(TOPIC, e.topic());
    headers.put(ATTEMPT, Integer.toString(e.attempt()));
    if (e.key() != null) {
      headers.put(KEY, e.key());
    }
    if (e.createdAt() != null) {
      headers.put(CREATED_AT, e.createdAt().toString());
    }
    return NatsMessage.builder()
        .subject(subject)
        .headers(headers)
        .data(e.payload().getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private Message message(Envelope e) {
    return message(e, subject.apply(e));
  }

  private static PublishOptions options(Envelope e) {
    return PublishOptions.builder().messageId(e.eventId()).build(); // the Nats-Msg-Id header
  }
}

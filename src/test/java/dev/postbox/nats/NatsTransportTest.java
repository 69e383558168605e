package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Envelope;
import dev.postbox.RejectedMessageException;
import dev.postbox.testing.Await;
import dev.postbox.testing.OrderLedger;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link NatsTransport} on its own against a {@code nats-server} child process, without a database:
 * how a send behaves when the server stops answering.
 */
@Tag("reliability") // a broker of its own: with the broker runs, mvn -B -Preliability verify
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NatsTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private NatsAdmin nats;
  private NatsServer server;
  private Connection admin;
  private JetStreamManagement jsm;

  @BeforeAll
  void startServer() throws Exception {
    nats = NatsAdmin.start("postbox-transport-admin");
    server = nats.server();
    admin = nats.connection();
    jsm = nats.jsm();
  }

  @AfterAll
  void stopServer() throws Exception {
    nats.close();
  }

  @Test
  void transportCarriesTheEnvelopeAndRejectsWhatNoStreamTakesOrIsTooLarge() throws Exception {
    NatsServer.stream(jsm, "CARRY", "carry.>", 64 * 1024);
    try (Connection c = server.connect("postbox-transport");
        Connection elsewhere = server.connect("postbox-nowhere")) {
      NatsTransport nats =
          NatsTransport.create(c, NatsTransport.keyPartitioned("carry", 4), Duration.ofSeconds(2));
      Envelope envelope =
          new Envelope(
              "order-7:v1",
              OrderLedger.TOPIC,
              "order-7",
              "{\"id\":7}",
              Map.of("traceparent", OrderLedger.trace("order-7")),
              2,
              Instant.parse("2026-01-02T03:04:05Z"));
      nats.send(envelope);
      nats.send(envelope); // inside the duplicate window: acked as a duplicate, not stored again

      NatsServer.pullConsumer(jsm, "CARRY", "check", "carry.>", Duration.ofSeconds(3), 100);
      JetStreamSubscription sub =
          admin.jetStream().subscribe(null, PullSubscribeOptions.bind("CARRY", "check"));
      List<Message> got = sub.fetch(10, Duration.ofSeconds(2));
      assertEquals(1, got.size(), "stored once");
      Message m = got.getFirst();
      assertEquals(NatsTransport.keyPartitioned("carry", 4).apply(envelope), m.getSubject());
      assertEquals("order-7:v1", m.getHeaders().getFirst("Nats-Msg-Id"));
      assertEquals("order-7:v1", m.getHeaders().getFirst("postbox-event-id"));
      assertEquals("{\"id\":7}", new String(m.getData(), StandardCharsets.UTF_8));
      assertEquals(null, NatsConsumer.problem(m.getHeaders()));
      assertEquals(envelope, NatsConsumer.envelope(m));
      assertEquals(1, nats.duplicates(), "duplicate acks");
      sub.unsubscribe();

      NatsTransport nowhere =
          NatsTransport.create(elsewhere, e -> "nowhere.carry", Duration.ofSeconds(2));
      RejectedMessageException noStream =
          assertThrows(RejectedMessageException.class, () -> nowhere.send(envelope));
      assertTrue(noStream.getMessage().contains("no JetStream stream"), noStream.getMessage());
      Envelope large =
          new Envelope("big-1", OrderLedger.TOPIC, null, "x".repeat(100_000), Map.of(), 1, null);
      RejectedMessageException tooLarge =
          assertThrows(RejectedMessageException.class, () -> nats.send(large));
      assertNotNull(tooLarge.getCause());
      System.out.println(
          "[nats transport] published=1 duplicateAcked=1 noStreamRejected=1 tooLargeRejected=1");
    } finally {
      jsm.deleteStream("CARRY");
    }
  }

  /**
   * Named after what broke: a connection the server no longer answered on stayed CONNECTED, so
   * every later send timed out on it. With a 5 s ping the client finds it stale and reconnects.
   */
  @Test
  void aSendToAFrozenServerFailsAndTheConnectionIsReplacedOnceTheServerThaws() throws Exception {
    NatsServer.stream(jsm, "FROZEN", "frozen.>", 64 * 1024);
    try (Connection c = server.connect("postbox-transport-frozen")) {
      NatsTransport nats = NatsTransport.create(c, e -> "frozen.0", Duration.ofSeconds(2));
      nats.send(envelope("frozen-1"));
      Envelope second = envelope("frozen-2");
      Exception failed;
      server.freeze();
      try {
        failed = assertThrows(Exception.class, () -> nats.send(second));
        Await.until(
            WAIT,
            "the client to find its connection stale",
            () -> c.getStatus() != Connection.Status.CONNECTED);
      } finally {
        server.thaw();
      }
      assertFalse(failed instanceof RejectedMessageException, "an outage, not a rejection");
      Await.until(WAIT, "reconnected", () -> c.getStatus() == Connection.Status.CONNECTED);
      // the frozen publish may have been read and stored after the thaw: then this is a duplicate
      nats.send(second);
      Await.until(
          WAIT, "admin reconnected", () -> admin.getStatus() == Connection.Status.CONNECTED);
      assertEquals(
          2, jsm.getStreamInfo("FROZEN").getStreamState().getMsgCount(), "stored once each");
      System.out.printf(
          "[nats transport] frozen server: send failed with %s; stale connection replaced;"
              + " after the thaw stored=2 duplicateAcks=%d%n",
          failed.getClass().getSimpleName(), nats.duplicates());
    } finally {
      jsm.deleteStream("FROZEN");
    }
  }

  private static Envelope envelope(String id) {
    return new Envelope(id, OrderLedger.TOPIC, id, OrderLedger.payload(id), Map.of(), 1, null);
  }
}

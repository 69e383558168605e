package dev.postbox.nats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postbox.Envelope;
import dev.postbox.RejectedMessageException;
import dev.postbox.testing.Await;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link NatsTransport} on its own against a {@code nats-server} child process, without a database:
 * how a send behaves when the server stops answering.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NatsTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private NatsServer server;
  private Connection admin;
  private JetStreamManagement jsm;

  @BeforeAll
  void startServer() throws Exception {
    server = NatsServer.start();
    admin = server.connectConsumer("postbox-transport-admin");
    jsm = admin.jetStreamManagement();
  }

  @AfterAll
  void stopServer() throws Exception {
    try {
      admin.close();
    } finally {
      server.close();
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
    return new Envelope(id, Ledger.TOPIC, id, Ledger.payload(id), Map.of(), 1, null);
  }
}

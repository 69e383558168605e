package dev.postbox.nats;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;

/**
 * A test class's {@link NatsServer} with the admin connection that creates and inspects its streams
 * and consumers; closing it closes the connection, then stops the server.
 */
record NatsAdmin(NatsServer server, Connection connection, JetStreamManagement jsm)
    implements AutoCloseable {
  /** Starts a server and connects to it as {@code clientName}. */
  static NatsAdmin start(String clientName) throws Exception {
    NatsServer server = NatsServer.start();
    try {
      Connection admin = server.connectConsumer(clientName);
      return new NatsAdmin(server, admin, admin.jetStreamManagement());
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
  }

  @Override
  public void close() throws Exception {
    try {
      connection.close();
    } finally {
      server.close();
    }
  }
}

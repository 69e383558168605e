package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A console on a loopback address answers only requests that name a loopback host, so a web page
 * whose own name points at 127.0.0.1 (DNS rebinding) cannot read it. Requests are written by hand:
 * an HTTP client sets the Host header itself. No database is reached: the guard answers first, and
 * the stylesheet needs none.
 */
class ConsoleGuardTest {

  private static String get(InetSocketAddress address, String host) throws IOException {
    try (Socket s = new Socket(address.getAddress(), address.getPort())) {
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET /console.css HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void onlyRequestsNamingALoopbackHostAreAnswered() throws Exception {
    DataSource unused = // no request here reads: any use of it fails the test
        (DataSource)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  throw new AssertionError("the database was used: " + method);
                });
    try (Console console =
        Console.builder(unused)
            .outbox(Outbox.builder().build())
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .start()) {
      InetSocketAddress a = console.address();
      int port = a.getPort();
      for (String host : new String[] {"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port}) {
        String response = get(a, host);
        assertTrue(response.startsWith("HTTP/1.1 200"), host + ": " + response);
      }
      for (String host :
          new String[] {
            "evil.example:" + port, "127.0.0.1.evil.example", "localhost.evil.example"
          }) {
        String response = get(a, host);
        assertTrue(response.startsWith("HTTP/1.1 403"), host + ": " + response);
        assertTrue(response.contains("loopback host only"), response);
      }
    }
  }
}

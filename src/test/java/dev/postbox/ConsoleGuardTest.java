package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.JdbcProxy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
    return send(address, "GET /console.css HTTP/1.1\r\nHost: " + host + "\r\n");
  }

  /** Sends {@code head} (request line and headers, each ending in CRLF), then reads the answer. */
  private static String send(InetSocketAddress address, String head) throws IOException {
    try (Socket s = new Socket(address.getAddress(), address.getPort())) {
      s.setSoTimeout(30_000); // an answer that never comes fails the test instead of hanging it
      OutputStream out = s.getOutputStream();
      out.write((head + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A console over a database that no request may use: any use of it fails the test. */
  private static Console unusedDatabase() {
    DataSource unused =
        (DataSource)
            Proxy.newProxyInstance(
                ConsoleGuardTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  throw new AssertionError("the database was used: " + method);
                });
    return Console.builder(unused)
        .outbox(Outbox.builder().build())
        .jobs(Jobs.builder().build())
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .start();
  }

  @Test
  void onlyRequestsNamingALoopbackHostAreAnswered() throws Exception {
    try (Console console = unusedDatabase()) {
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

  @Test
  void aBadRefOfTheRowPageIsRefusedWithItsNameBeforeTheDatabaseIsUsed() throws Exception {
    try (Console console = unusedDatabase()) {
      for (String query :
          new String[] {
            "table=postbox_outbox", "table=postbox_outbox&ref=%01", "table=postbox_jobs&ref=x1"
          }) {
        String response =
            send(console.address(), "GET /row?" + query + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        assertTrue(response.startsWith("HTTP/1.1 400"), query + ": " + response);
        assertTrue(response.contains("<p class=\"error\">ref "), query + ": " + response);
      }
    }
  }

  @Test
  void anActionTokenNoClientCouldSendInAHeaderIsRefusedWithoutShowingIt() {
    for (String token : new String[] {"€".repeat(16), "ö".repeat(16), "a-secret-of-length-16 "}) {
      var e =
          assertThrows(
              InvalidValueException.class,
              () ->
                  Console.builder(JdbcProxy.of(DataSource.class, (p, m, a) -> null))
                      .actionToken(token));
      assertTrue(e.getMessage().startsWith("actionToken "), e.getMessage());
      assertFalse(e.getMessage().contains(token.strip()), e.getMessage());
    }
    Console.builder(JdbcProxy.of(DataSource.class, (p, m, a) -> null))
        .actionToken("correct horse battery staple!");
  }

  @Test
  void clientsThatNeverFinishTheirRequestsHoldUpNoOneElse() throws Exception {
    try (Console console = unusedDatabase()) {
      InetSocketAddress a = console.address();
      List<Socket> slow = new ArrayList<>();
      try {
        for (int i = 0; i < 16; i++) { // a request's first line and Host, then nothing more
          Socket s = new Socket(a.getAddress(), a.getPort());
          slow.add(s);
          s.getOutputStream()
              .write(
                  "GET /console.css HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      .getBytes(StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
        }
        String response = get(a, "127.0.0.1"); // hung here, read by no thread, without the fix
        assertTrue(response.startsWith("HTTP/1.1 200"), response);
      } finally {
        for (Socket s : slow) {
          s.close();
        }
      }
    }
  }
}

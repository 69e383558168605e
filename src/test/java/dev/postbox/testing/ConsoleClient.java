package dev.postbox.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Requests to a console's own server, as a browser or a script would send them. */
public final class ConsoleClient {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final String base;

  public ConsoleClient(InetSocketAddress address) {
    this.base = "http://127.0.0.1:" + address.getPort() + "/";
  }

  /** {@return the base URL, ending in a slash} */
  public String base() {
    return base;
  }

  /** A GET of {@code path} (relative to the console, with its query). */
  public HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  /** A form POST of {@code form} to {@code path}, with these header name/value pairs. */
  public HttpResponse<String> post(String path, String form, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return send(b);
  }

  private HttpResponse<String> send(HttpRequest.Builder b) {
    try {
      return http.send(
          b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

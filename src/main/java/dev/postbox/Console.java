package dev.postbox;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.internal.Require;
import dev.postbox.internal.Rules;
import dev.postbox.internal.console.ConsoleConfig;
import dev.postbox.internal.console.ConsoleHandler;
import dev.postbox.internal.console.ConsoleTable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations console: a small web page and JSON API, on the JDK's own HTTP server, that shows
 * the queues (due, running, retrying, parked rows, blocked keys, lag, lease holders, schedules)
 * and, with an action token, replays, discards, cancels, pauses and runs schedules now. Off unless
 * started; loopback only by default; read-only without a token.
 *
 * <p>Thread-safe. Each read runs bounded statements on a connection of its own; each action is one
 * transaction, logged at INFO. Guide: {@code docs/console.md}.
 */
public final class Console implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Console.class);

  private final HttpHandler handler;
  private final HttpServer server; // null unless started
  private final ExecutorService executor;

  private Console(HttpHandler handler, HttpServer server, ExecutorService executor) {
    this.handler = handler;
    this.server = server;
    this.executor = executor;
  }

  /**
   * {@return a new builder over the database of {@code dataSource}; add what it shows with {@link
   * Builder#outbox}, {@link Builder#jobs} and {@link Builder#inbox}}
   *
   * @param dataSource the database of the tables the console shows
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Require.notNull("dataSource", dataSource));
  }

  /**
   * {@return the console's handler, to mount in an {@code HttpServer} of your own (its context path
   * may be anything; the console's links are relative)}
   */
  public HttpHandler handler() {
    return handler;
  }

  /** {@return the address the console's own server listens on, or null if it was only built} */
  public InetSocketAddress address() {
    return server == null ? null : server.getAddress();
  }

  /** Stops the console's own server, if it has one; requests under way get a second to end. */
  @Override
  public void close() {
    if (server != null) {
      server.stop(1);
      executor.shutdownNow();
      log.info("console - stopped");
    }
  }

  /** Collects what a {@link Console} shows and may do. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private final List<ConsoleTable> tables = new ArrayList<>();
    private Inbox inbox;
    private Dispatcher dispatcher;
    private InetSocketAddress bind = new InetSocketAddress("127.0.0.1", 8089);
    private String token;
    private boolean showPayloads;
    private int maxActionRows = 1000;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /** Shows an outbox's table: counts, parked and failing messages, blocked keys. */
    public Builder outbox(Outbox outbox) {
      return table(new ConsoleTable(Require.notNull("outbox", outbox).queueTable(), outbox, null));
    }

    /** Shows a job queue's table: counts, parked and failing jobs, paused names, schedules. */
    public Builder jobs(Jobs jobs) {
      return table(new ConsoleTable(Require.notNull("jobs", jobs).queueTable(), null, jobs));
    }

    private Builder table(ConsoleTable t) {
      if (tables.stream().anyMatch(shown -> shown.table().name().equals(t.table().name()))) {
        throw new InvalidValueException("table", t.table().name() + " is shown already");
      }
      tables.add(t);
      return this;
    }

    /** Shows an inbox's table: the event ids it keeps. */
    public Builder inbox(Inbox inbox) {
      this.inbox = Require.notNull("inbox", inbox);
      return this;
    }

    /**
     * Shows what {@code dispatcher}, in this JVM, delivered and failed since it started, on the
     * overview and in {@code /metrics}.
     */
    public Builder dispatcher(Dispatcher dispatcher) {
      this.dispatcher = Require.notNull("dispatcher", dispatcher);
      return this;
    }

    /**
     * Where {@link #start} listens; default {@code 127.0.0.1:8089}. Port 0 picks a free port. On a
     * loopback address the console answers only requests that name a loopback host.
     */
    public Builder bind(InetSocketAddress address) {
      this.bind = Require.notNull("bind", address);
      return this;
    }

    /**
     * The secret an operator types into the console to act (replay, discard, cancel, pause, run
     * now): 16 to 200 printable ASCII characters, not starting or ending with a space. Without one
     * the console is read-only.
     */
    public Builder actionToken(String token) {
      Rules.text("actionToken", token, 200, false);
      if (token.length() < 16) {
        throw new InvalidValueException(
            "actionToken", "must be 16 to 200 characters but has " + token.length());
      }
      // it travels in a header: a browser refuses to send a character beyond Latin-1 there and
      // trims spaces, and other clients send UTF-8 bytes the server reads as Latin-1, so any other
      // token would never match (the message never shows the secret)
      for (int i = 0; i < token.length(); i++) {
        if (token.charAt(i) < 0x20 || token.charAt(i) > 0x7E) {
          throw new InvalidValueException(
              "actionToken",
              "must be printable ASCII (it is sent in an HTTP header) but has "
                  + String.format("U+%04X", (int) token.charAt(i))
                  + " at index "
                  + i);
        }
      }
      if (token.startsWith(" ") || token.endsWith(" ")) {
        throw new InvalidValueException("actionToken", "must not start or end with a space");
      }
      this.token = token;
      return this;
    }

    /** Whether the lists show the rows' payloads; default false (never shown). */
    public Builder showPayloads(boolean show) {
      this.showPayloads = show;
      return this;
    }

    /**
     * The most rows one replay or discard of every matching row changes: 1 to 10,000, default
     * 1,000.
     */
    public Builder maxActionRows(int rows) {
      Require.between("maxActionRows", rows, 1, 10_000);
      this.maxActionRows = rows;
      return this;
    }

    /** {@return a console without a server of its own: mount its {@link Console#handler()}} */
    public Console build() {
      return new Console(new ConsoleHandler(config(), false), null, null);
    }

    /**
     * {@return a console serving on {@link #bind}, started}
     *
     * @throws PostboxException if the address cannot be bound
     */
    public Console start() {
      ConsoleConfig config = config();
      boolean loopback = bind.getAddress() != null && bind.getAddress().isLoopbackAddress();
      ConsoleHandler handler = new ConsoleHandler(config, loopback);
      // a virtual thread per request: the server reads a request on the executor's thread, so a
      // fixed pool was held by as many slow clients (ConsoleData bounds the database work)
      ExecutorService executor =
          Executors.newThreadPerTaskExecutor(
              Thread.ofVirtual().name("postbox-console-", 1).factory());
      try {
        HttpServer server = HttpServer.create(bind, 0);
        server.createContext("/", handler);
        server.setExecutor(executor);
        server.start();
        log.info(
            "console - serving {} on http://{}:{}/ ({})",
            config.tables().stream().map(ConsoleTable::table).map(t -> t.name()).toList(),
            server.getAddress().getHostString(),
            server.getAddress().getPort(),
            token == null ? "read-only: no action token" : "actions with the action token");
        if (!loopback) {
          log.warn(
              "console - listening on {}, not loopback: anyone who reaches it can read the queues",
              bind);
        }
        return new Console(handler, server, executor);
      } catch (IOException e) {
        executor.shutdownNow();
        throw new PostboxException("could not start the console on " + bind, e);
      }
    }

    private ConsoleConfig config() {
      if (tables.isEmpty() && inbox == null) {
        throw new InvalidValueException(
            "console", "shows nothing: add an outbox, jobs or an inbox");
      }
      Dispatcher d = dispatcher;
      return new ConsoleConfig(
          dataSource,
          List.copyOf(tables),
          inbox,
          d == null ? Map::of : d::counts,
          token,
          showPayloads,
          maxActionRows);
    }
  }
}

package dev.postbox;

import dev.postbox.testing.Await;
import dev.postbox.testing.Browser;
import dev.postbox.testing.Sql;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the console's browser tests: one headless Chromium per class, a new console per test (so
 * each test has an origin, and so a sessionStorage, of its own), and a busy database to show.
 */
public abstract class ConsoleBrowserSuite extends OutboxSuite {
  static final String TOKEN = ConsoleContractTest.TOKEN;
  private static final List<String> COUNTS =
      List.of("due", "running", "retrying", "parked", "blocked-keys");

  final Jobs jobs = Jobs.builder().build();
  private final Inbox inbox = Inbox.builder().build();
  private final List<Console> consoles = new ArrayList<>();
  Browser browser;

  @BeforeAll
  void startBrowser() {
    browser = Browser.start();
  }

  @AfterAll
  void closeBrowser() {
    if (browser != null) {
      browser.close();
    }
  }

  @BeforeEach
  void forgetEarlierConsoleMessages() {
    browser.consoleMessages();
  }

  @AfterEach
  void closeConsoles() {
    consoles.forEach(Console::close);
    consoles.clear();
  }

  /** Whether this database's run saves the docs' screenshots (when the property names a folder). */
  protected boolean takesScreenshots() {
    return false;
  }

  /** Starts a console on a free loopback port; {@return its base URL, ending in a slash} */
  String console(boolean acting) {
    Console.Builder b = Console.builder(ds).outbox(outbox).jobs(jobs).inbox(inbox);
    Console c =
        (acting ? b.actionToken(TOKEN) : b).bind(new InetSocketAddress("127.0.0.1", 0)).start();
    consoles.add(c);
    return "http://127.0.0.1:" + c.address().getPort() + "/";
  }

  /** The overview's due, running, retrying, parked and blocked-keys cells of {@code table}. */
  List<String> counts(String table) {
    return COUNTS.stream()
        .map(c -> browser.text("section[data-table=" + table + "] td." + c))
        .toList();
  }

  /** Saves the page for the docs when {@code postbox.console.screenshots} names a folder. */
  void screenshot(String name) {
    String folder = System.getProperty("postbox.console.screenshots");
    if (folder != null && takesScreenshots()) {
      browser.screenshot(Path.of(folder, name));
    }
  }

  /**
   * What an operator opens the console to: due rows, two failing, three parked with their errors, a
   * key blocked behind a parked head, due and parked jobs, a nightly schedule, an inbox.
   */
  void busyDatabase() {
    // a schedule is stored by the job dispatcher that declares it; at 3 a.m. it is not due
    Dispatcher scheduler =
        started(
            jobDispatcher(jobs, JobHandler.of("nightly-report", run -> {}))
                .recurring(Schedule.cron("0 0 3 * * *"), "nightly-report", "{}"));
    Await.until(
        WAIT,
        "schedule stored",
        () -> Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs_schedules") == 1);
    scheduler.close();
    for (int n = 1001; n <= 1012; n++) {
      add(Message.of("order.created", "{}").key("order-" + n).eventId("order-" + n + "-created"));
    }
    add(
        Message.of("invoice.issued", "{}").eventId("invoice-17-issued"),
        Message.of("shipment.sent", "{}").eventId("shipment-88-sent"),
        Message.of("order.cancelled", "{}").eventId("order-1003-cancelled"),
        Message.of("payment.captured", "{}").eventId("payment-5-captured"),
        Message.of("payment.captured", "{}").eventId("payment-6-captured"));
    retryLater("invoice-17-issued", "java.net.SocketTimeoutException: Read timed out");
    retryLater(
        "shipment-88-sent",
        "org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for shipments-0:"
            + " 30001 ms has passed since batch creation");
    park(
        "order-1003-cancelled",
        "com.rabbitmq.client.ShutdownSignalException: channel error; protocol method:"
            + " #method<channel.close>(reply-code=404, reply-text=NOT_FOUND - no exchange"
            + " 'orders' in vhost '/', class-id=60, method-id=40)");
    String notJson = "java.lang.IllegalArgumentException: payload is not JSON at offset 17";
    park("payment-5-captured", notJson);
    park("payment-6-captured", notJson);
    for (int i = 1; i <= 3; i++) {
      add(Message.of("customer.updated", "{}").key("customer-42").eventId("customer-42-" + i));
    }
    park(
        "customer-42-1",
        "org.apache.kafka.common.errors.RecordTooLargeException: The message is 1311032 bytes"
            + " when serialized which is larger than 1048576");
    Sql.commit(
        ds,
        c -> {
          for (int i = 0; i < 3; i++) {
            jobs.enqueue(c, Job.of("send-invoice", "{}"));
          }
          jobs.enqueue(c, Job.of("export-csv", "{}"));
          for (int i = 0; i < 3; i++) {
            inbox.claim(c, "billing", "payment-" + i + "-captured");
          }
        });
    Sql.update(
        ds,
        "UPDATE postbox_jobs SET state = 2, attempts = 5, last_error = ? WHERE name = 'export-csv'",
        "java.nio.file.AccessDeniedException: /exports/2026-12.csv");
  }
}

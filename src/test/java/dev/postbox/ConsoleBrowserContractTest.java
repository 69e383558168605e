package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.WebElement;

/**
 * The operations console in a real browser (headless Chromium): what an operator sees, what the
 * page's own script does when a button is clicked (each outcome checked in the tables), what it
 * refuses, and that stored markup stays text.
 */
public abstract class ConsoleBrowserContractTest extends ConsoleBrowserSuite {
  @Test
  void overviewShowsTheCountsOfASeededDatabase() {
    addNumbered("due-", 5);
    add(Message.of("p", "{}").eventId("parked-1"), Message.of("p", "{}").eventId("parked-2"));
    park("parked-1", "java.io.IOException: broker down");
    park("parked-2", "java.io.IOException: broker down");
    add(Message.of("r", "{}").eventId("retrying-1"));
    retryLater("retrying-1", "java.net.SocketTimeoutException: Read timed out");

    browser.open(console(false));
    assertEquals(List.of("5", "0", "1", "2", "0"), counts("postbox_outbox"));
    assertEquals(2, parked());
    assertEquals(8, rows());
    assertEquals(List.of(), browser.consoleMessages(), "no CSP violation or script error");
  }

  @Test
  void parkedRowReplayedFromTheParkedPageIsDelivered() {
    add(Message.of("t", "{}").eventId("poison-1"));
    park("poison-1", "boom");
    long id = idOf("poison-1");
    browser.open(console(true) + "parked?table=postbox_outbox");
    browser.typeToken(TOKEN);
    browser.find("tr[data-id='" + id + "'] button[data-action=replay]").click();

    assertEquals("replayed parked row id=" + id + " of postbox_outbox", browser.status("ok"));
    assertEquals(List.of(), browser.all("tr[data-id]"), "the reloaded page lists no parked row");
    assertEquals(0, parked());
    assertEquals(List.of("poison-1"), deliverEverything());
  }

  @Test
  void blockedKeyReleasedFromTheBlockedKeysPageDeliversItsFollowersInOrder() {
    add(
        Message.of("t", "{}").key("customer-7").eventId("k-1"),
        Message.of("t", "{}").key("customer-7").eventId("k-2"),
        Message.of("t", "{}").key("customer-7").eventId("k-3"));
    park("k-1", "poison");
    long head = idOf("k-1");
    browser.open(console(true) + "blocked?table=postbox_outbox");
    assertEquals(
        List.of(
            "customer-7",
            String.valueOf(head),
            "k-1",
            "3",
            "poison",
            "2",
            "Replay head Discard head"),
        browser.texts("table.blocked td"));
    browser.typeToken(TOKEN);
    browser.find("table.blocked button[data-action=discard]").click();

    assertEquals("discarded parked row id=" + head + " of postbox_outbox", browser.status("ok"));
    assertEquals(List.of(), browser.all("table.blocked td"), "no key blocked any more");
    assertEquals(0, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE event_id = 'k-1'"));
    assertEquals(List.of("k-2", "k-3"), deliverEverything());
  }

  @Test
  void readOnlyConsoleShowsNoActionAndRefusesAPostFromItsOwnPage() {
    add(Message.of("t", "{}").eventId("p-1"));
    park("p-1", "boom");
    String base = console(false);
    for (String page :
        List.of(
            "",
            "parked?table=postbox_outbox",
            "failing?table=postbox_outbox",
            "blocked?table=postbox_outbox",
            "parked?table=postbox_jobs",
            "schedules")) {
      browser.open(base + page);
      assertEquals(List.of(), browser.all("button[data-action]"), page);
      assertEquals(List.of(), browser.all("#token"), page);
      assertEquals("read-only", browser.text("header .readonly"), page);
    }
    assertEquals(List.of(), browser.consoleMessages(), "no CSP violation or script error");

    browser.open(base + "parked?table=postbox_outbox");
    assertEquals(List.of("p-1"), browser.texts("table.rows td:nth-child(2)"));
    Map<?, ?> forged = browser.post("api/discard", "table=postbox_outbox&id=" + idOf("p-1"), TOKEN);
    assertEquals(
        Map.of(
            "status",
            403L,
            "error",
            "this console is read-only: start it with an action token to act"),
        forged);
    assertEquals(1, parked());
  }

  @Test
  void markupStoredInAnErrorTextStaysText() {
    String hostile = "<script>window.owned=1</script><img src=x onerror=\"window.owned=1\">";
    add(Message.of("t", "{}").key("<i>k</i>").eventId("x-1"));
    park("x-1", hostile);
    String base = console(true);
    for (String page : List.of("parked?table=postbox_outbox", "blocked?table=postbox_outbox")) {
      browser.open(base + page);
      WebElement cell = browser.find("td.error");
      assertEquals(hostile, cell.getDomProperty("textContent"), page);
      assertEquals("0", cell.getDomProperty("childElementCount"), page);
      assertEquals("undefined", browser.script("return typeof window.owned"), page);
      assertEquals(1L, browser.script("return document.scripts.length"), "console.js only");
      assertEquals(List.of(), browser.all("img"), page);
    }
    assertEquals(1, parked());
  }

  @Test
  void wrongOrMissingTokenIsRefusedOnThePage() {
    add(Message.of("t", "{}").eventId("p-1"));
    park("p-1", "boom");
    String page = console(true) + "parked?table=postbox_outbox";
    browser.open(page);
    browser.typeToken(TOKEN + "x");
    browser.find("button[data-action=replay]").click();
    assertEquals("wrong action token", browser.status("failed"));
    assertEquals(1, parked());

    browser.open(page);
    browser.typeToken("");
    browser.find("button[data-action=discard]").click();
    assertEquals(
        "an action needs the action token in the X-Postbox-Token header", browser.status("failed"));
    assertEquals(1, parked());
  }

  @Test
  void aBusyDatabaseShowsOnEveryPageAndAJobNameIsPausedFromTheOverview() {
    busyDatabase();
    String base = console(true);
    browser.open(base);
    browser.typeToken(TOKEN);
    browser.find("#pause-postbox_jobs").sendKeys("send-invoice");
    browser.find("button[data-action=pause]").click();
    assertEquals("paused job name send-invoice of postbox_jobs", browser.status("ok"));
    List<String> paused = new ArrayList<>();
    Sql.commit(ds, c -> paused.addAll(jobs.paused(c)));
    assertEquals(List.of("send-invoice"), paused);

    assertEquals(List.of("14", "0", "2", "4", "1"), counts("postbox_outbox"));
    assertEquals(List.of("3", "0", "0", "1", "–"), counts("postbox_jobs"));
    assertEquals("send-invoice", browser.text("p.paused .name"));
    screenshot("console-overview.png");
    browser.open(base + "parked?table=postbox_outbox");
    assertEquals(
        List.of(
            "order-1003-cancelled", "payment-5-captured", "payment-6-captured", "customer-42-1"),
        browser.texts("table.rows td:nth-child(2)"));
    screenshot("console-parked.png");
    browser.open(base + "blocked?table=postbox_outbox");
    assertEquals(List.of("customer-42"), browser.texts("table.blocked td:first-child"));
    screenshot("console-blocked.png");
    browser.open(base + "schedules");
    List<String> schedule = new ArrayList<>(browser.texts("table.schedules td"));
    assertTrue(schedule.remove(3).endsWith("T03:00:00Z"), "next tick at 3 a.m.: " + schedule);
    assertEquals(
        List.of("postbox_jobs", "nightly-report", "cron 0 0 3 * * * Z", "", "none", "Run now"),
        schedule);
    screenshot("console-schedules.png");
    assertEquals(List.of(), browser.consoleMessages(), "no CSP violation or script error");
  }

  @Test
  void filterAndLookUpFormsLeadToTheRowsAskedFor() {
    add(Message.of("a", "{}").eventId("a-1"), Message.of("b", "{}").eventId("b-1"));
    park("a-1", "java.io.IOException: broker down");
    park("b-1", "java.lang.IllegalArgumentException: not JSON");
    String base = console(true);
    browser.open(base + "parked?table=postbox_outbox");
    browser.find("form.filter input[name=error]").sendKeys("broker");
    browser.submit("form.filter button[type=submit]");
    assertEquals(List.of("a-1"), browser.texts("table.rows td:nth-child(2)"));
    browser.typeToken(TOKEN);
    browser.find("button[data-action=replay-matching]").click();
    assertEquals(
        "replayed 1 parked rows of postbox_outbox matching error containing 'broker'",
        browser.status("ok"));
    assertEquals(List.of(), browser.all("table.rows td"), "the filtered list is empty now");
    assertEquals(1, parked());

    browser.open(base);
    browser.find("section[data-table=postbox_outbox] input[name=ref]").sendKeys("b-1");
    browser.submit("section[data-table=postbox_outbox] form.lookup button");
    assertEquals(
        List.of("b-1", "parked", "java.lang.IllegalArgumentException: not JSON"),
        List.of(
            browser.text("table.row td.ref"),
            browser.text("table.row td.state"),
            browser.text("table.row td.lastError")));
    assertEquals(List.of(), browser.consoleMessages(), "no CSP violation or script error");
  }
}

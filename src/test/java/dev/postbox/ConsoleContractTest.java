package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.ConsoleClient;
import dev.postbox.testing.QueryTimeouts;
import dev.postbox.testing.Sql;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The operations console over HTTP, proven on every database: what it counts and lists, what its
 * actions change (each checked in the tables), and what it refuses.
 */
public abstract class ConsoleContractTest extends OutboxSuite {
  static final String TOKEN = "a-test-token-of-some-length";
  static final String[] AUTH = {"X-Postbox-Token", TOKEN};

  private final Jobs jobs = Jobs.builder().build();
  private final Inbox inbox = Inbox.builder().build();
  private final List<Console> consoles = new ArrayList<>();

  @AfterEach
  void closeConsoles() {
    consoles.forEach(Console::close);
  }

  ConsoleClient console(Console.Builder b) {
    Console c = b.bind(new InetSocketAddress("127.0.0.1", 0)).start();
    consoles.add(c);
    return new ConsoleClient(c.address());
  }

  Console.Builder builder() {
    return Console.builder(ds).outbox(outbox).jobs(jobs).inbox(inbox);
  }

  ConsoleClient acting() {
    return console(builder().actionToken(TOKEN));
  }

  @Test
  void overviewCountsASeededDatabaseInItsPageAndItsJson() {
    addNumbered("due-", 5);
    add(Message.of("p", "{}").eventId("parked-1"), Message.of("p", "{}").eventId("parked-2"));
    park("parked-1", "java.io.IOException: broker down");
    park("parked-2", "java.io.IOException: broker down");
    add(Message.of("r", "{}").eventId("retrying-1"));
    retryLater("retrying-1", "x");
    Sql.commit(ds, c -> inbox.claim(c, "billing", "event-1"));
    Sql.commit(ds, c -> jobs.pause(c, "send-invoice"));

    ConsoleClient http = console(builder());
    HttpResponse<String> json = http.get("api/overview");
    assertEquals(200, json.statusCode(), json.body());
    String outboxJson = json.body().substring(0, json.body().indexOf("postbox_jobs"));
    assertTrue(
        outboxJson.contains("\"due\":5,\"running\":0,\"retrying\":1,\"parked\":2"), json.body());
    assertTrue(json.body().contains("\"pausedNames\":[\"send-invoice\"]"), json.body());
    assertTrue(json.body().contains("\"processed\":1"), json.body());
    assertTrue(json.body().contains("\"actions\":false"), json.body());

    HttpResponse<String> page = http.get("");
    assertEquals(200, page.statusCode());
    String outboxPage =
        page.body().substring(0, page.body().indexOf("data-table=\"postbox_jobs\""));
    assertTrue(outboxPage.contains("<td class=\"due\">5</td>"), outboxPage);
    assertTrue(outboxPage.contains(">2</a></td>"), outboxPage); // parked, linked to its list
    assertFalse(page.body().contains("data-action=\""), "read-only: no action buttons");
    assertTrue(
        page.headers()
            .firstValue("Content-Security-Policy")
            .orElse("")
            .contains("default-src 'none'"));

    String metrics = http.get("metrics").body();
    assertTrue(metrics.contains("postbox_due{table=\"postbox_outbox\"} 5\n"), metrics);
    assertTrue(metrics.contains("postbox_parked{table=\"postbox_outbox\"} 2\n"), metrics);
    assertTrue(metrics.contains("postbox_inbox_processed{table=\"postbox_inbox\"} 1\n"), metrics);
  }

  @Test
  void parkedRowReplayedFromTheConsoleIsDelivered() {
    add(Message.of("t", "{}").eventId("poison-1"));
    park("poison-1", "boom");
    ConsoleClient http = acting();
    String list = http.get("api/parked?table=postbox_outbox").body();
    String id = list.replaceAll("(?s).*\"rows\":\\[\\{\"id\":(\\d+).*", "$1");

    HttpResponse<String> replay = http.post("api/replay", "table=postbox_outbox&id=" + id, AUTH);
    assertEquals(200, replay.statusCode(), replay.body());
    assertTrue(replay.body().contains("\"changed\":1"), replay.body());
    HttpResponse<String> again = http.post("api/replay", "table=postbox_outbox&id=" + id, AUTH);
    assertEquals(409, again.statusCode(), "not parked any more: " + again.body());

    assertEquals(List.of("poison-1"), deliverEverything());
  }

  @Test
  void blockedKeyReleasedByDiscardingItsHeadDeliversItsFollowersInOrder() {
    add(
        Message.of("t", "{}").key("customer-7").eventId("k-1"),
        Message.of("t", "{}").key("customer-7").eventId("k-2"),
        Message.of("t", "{}").key("customer-7").eventId("k-3"));
    park("k-1", "poison");
    ConsoleClient http = acting();
    String blocked = http.get("api/blocked?table=postbox_outbox").body();
    assertTrue(blocked.contains("\"key\":\"customer-7\""), blocked);
    assertTrue(blocked.contains("\"waiting\":2"), blocked);
    String head = blocked.replaceAll("(?s).*\"head\":\\{\"id\":(\\d+).*", "$1");

    HttpResponse<String> discard =
        http.post("api/discard", "table=postbox_outbox&id=" + head, AUTH);
    assertEquals(200, discard.statusCode(), discard.body());

    assertEquals(List.of("k-2", "k-3"), deliverEverything());
  }

  @Test
  void readOnlyConsoleShowsNoActionAndRefusesAForgedPost() {
    add(Message.of("t", "{}").eventId("p-1"));
    park("p-1", "boom");
    ConsoleClient http = console(builder());
    String page = http.get("parked?table=postbox_outbox").body();
    assertTrue(page.contains("p-1"), page);
    assertFalse(page.contains("data-action=\""), page);
    HttpResponse<String> forged = http.post("api/discard", "table=postbox_outbox&id=1", AUTH);
    assertEquals(403, forged.statusCode());
    assertTrue(forged.body().contains("read-only"), forged.body());
    assertEquals(1, parked());
  }

  @Test
  void wrongOrMissingTokenAndForeignOriginsAreRefusedAndWriteNothing() {
    add(Message.of("t", "{}").eventId("p-1"));
    park("p-1", "boom");
    ConsoleClient http = acting();
    String form = "table=postbox_outbox&error=boom";
    HttpResponse<String> missing = http.post("api/discard-matching", form);
    assertEquals(403, missing.statusCode());
    String needsToken = "an action needs the action token in the X-Postbox-Token header";
    assertTrue(missing.body().contains(needsToken), missing.body());
    HttpResponse<String> empty = http.post("api/discard-matching", form, AUTH[0], "");
    assertEquals(403, empty.statusCode());
    assertTrue(
        empty.body().contains(needsToken), "an empty token is a missing one: " + empty.body());
    assertEquals(
        403, http.post("api/discard-matching", form, "X-Postbox-Token", TOKEN + "x").statusCode());
    assertEquals(
        403,
        http.post("api/discard-matching", form, AUTH[0], AUTH[1], "Origin", "https://evil.example")
            .statusCode());
    assertEquals(
        403,
        http.post("api/discard-matching", form, AUTH[0], AUTH[1], "Sec-Fetch-Site", "cross-site")
            .statusCode());
    assertEquals(405, http.post("overview", form, AUTH).statusCode());
    assertEquals(1, parked(), "nothing written");
    HttpResponse<String> sameOrigin =
        http.post(
            "api/discard-matching",
            form,
            AUTH[0],
            AUTH[1],
            "Origin",
            http.base().substring(0, http.base().length() - 1));
    assertEquals(200, sameOrigin.statusCode(), sameOrigin.body());
    assertEquals(0, parked());
  }

  @Test
  void storedMarkupInAnErrorTextIsShownAsText() {
    add(Message.of("t", "{}").key("<b>k</b>").eventId("x-1"));
    park("x-1", "<script>alert('owned')</script>");
    ConsoleClient http = acting();
    String page = http.get("parked?table=postbox_outbox").body();
    assertFalse(page.contains("<script>alert"), page);
    assertFalse(page.contains("<b>k</b>"), page);
    assertTrue(page.contains("&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;"), page);
    String json = http.get("api/parked?table=postbox_outbox").body();
    assertTrue(json.contains("\\u003cscript\\u003ealert('owned')\\u003c/script\\u003e"), json);
  }

  @Test
  void aHandlerMountedInAnotherServerServesItsPagesUnderItsPath() throws Exception {
    add(Message.of("t", "{}").eventId("m-1"));
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/ops", Console.builder(ds).outbox(outbox).build().handler());
    server.start();
    try {
      var http =
          java.net.http.HttpClient.newBuilder()
              .followRedirects(java.net.http.HttpClient.Redirect.NEVER)
              .build();
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      var bare =
          http.send(
              java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/ops")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(301, bare.statusCode());
      assertEquals("/ops/", bare.headers().firstValue("Location").orElseThrow());
      var overview =
          http.send(
              java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/ops/api/overview"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, overview.statusCode(), overview.body());
      assertTrue(overview.body().contains("\"due\":1,"), overview.body());
    } finally {
      server.stop(0);
    }
  }

  @Test
  void payloadsAreShownOnlyWhenAskedFor() {
    add(Message.of("t", "{\"card\":\"4111\"}").eventId("p-1"));
    park("p-1", "boom");
    ConsoleClient hidden = console(builder());
    assertFalse(hidden.get("api/parked?table=postbox_outbox").body().contains("4111"));
    assertFalse(hidden.get("parked?table=postbox_outbox").body().contains("4111"));
    ConsoleClient shown = console(builder().showPayloads(true));
    String json = shown.get("api/parked?table=postbox_outbox").body();
    assertTrue(json.contains("\"payload\":\"{\\\"card\\\":\\\"4111\\\"}\""), json);
    assertTrue(shown.get("parked?table=postbox_outbox").body().contains("4111"));
    add(Message.of("t", "\"" + "x".repeat(9_000) + "\"").eventId("p-2"));
    park("p-2", "boom");
    String longOne = shown.get("api/parked?table=postbox_outbox&after=1").body();
    assertTrue(longOne.contains("\"" + "x".repeat(4095) + "… (cut at 4096 characters)\""), longOne);
  }

  @Test
  void replayOfEveryMatchingRowTakesAtMostTheCapAndOnlyWhatMatches() {
    for (int i = 0; i < 5; i++) {
      add(Message.of("a", "{}").eventId("a-" + i));
      park("a-" + i, "java.net.ConnectException: refused 100%_sure");
    }
    add(Message.of("b", "{}").eventId("b-0"));
    park("b-0", "java.net.ConnectException: refused");
    ConsoleClient http = console(builder().actionToken(TOKEN).maxActionRows(3));
    String preview = http.get("api/parked?table=postbox_outbox&error=100%25_sure").body();
    assertTrue(preview.contains("\"matching\":3,\"matchingMore\":true"), preview);
    String matchB = http.get("api/parked?table=postbox_outbox&topic=b").body();
    assertTrue(matchB.contains("\"matching\":1,\"matchingMore\":false"), matchB);

    String form = "table=postbox_outbox&error=100%25_sure";
    assertTrue(http.post("api/replay-matching", form, AUTH).body().contains("\"changed\":3"));
    assertTrue(http.post("api/replay-matching", form, AUTH).body().contains("\"changed\":2"));
    assertEquals(409, http.post("api/replay-matching", form, AUTH).statusCode());
    assertEquals(1, parked(), "b-0 did not match");
    assertEquals(
        5, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 0 AND attempts = 0"));
  }

  @Test
  void errorFilterMatchesItsTextLiterallyAndCaseSensitivelyOnEveryDatabase() {
    String[] errors = {"Timeout", "timeout", "a\\b", "ab", "50% off", "50 off", "x_y", "xzy"};
    for (int i = 0; i < errors.length; i++) {
      add(Message.of("t", "{}").eventId("e-" + i));
      park("e-" + i, errors[i]);
    }
    ConsoleClient http = console(builder());
    for (String needle : new String[] {"timeout", "Timeout", "a\\b", "50%", "x_y", "!", "[z]"}) {
      String q = java.net.URLEncoder.encode(needle, java.nio.charset.StandardCharsets.UTF_8);
      String json = http.get("api/parked?table=postbox_outbox&error=" + q).body();
      int expected = needle.equals("!") || needle.equals("[z]") ? 0 : 1;
      assertTrue(json.contains("\"matching\":" + expected + ","), needle + ": " + json);
    }
  }

  @Test
  void everyStatementOfEveryPageAndActionHasAQueryTimeout() {
    add(
        Message.of("t", "{}").key("k").eventId("k-1"),
        Message.of("t", "{}").key("k").eventId("k-2"));
    park("k-1", "boom");
    Sql.commit(ds, c -> jobs.enqueue(c, Job.of("j", "{}").delay(java.time.Duration.ofHours(1))));
    QueryTimeouts watch = new QueryTimeouts();
    ConsoleClient http =
        console(
            Console.builder(watch.watching(ds))
                .outbox(outbox)
                .jobs(jobs)
                .inbox(inbox)
                .actionToken(TOKEN));
    for (String page :
        List.of(
            "",
            "parked?table=postbox_outbox&error=b",
            "failing?table=postbox_jobs",
            "blocked?table=postbox_outbox",
            "schedules",
            "metrics",
            "row?table=postbox_outbox&ref=k-2")) {
      assertEquals(200, http.get(page).statusCode(), page);
    }
    String[][] posts = {
      {"api/pause", "table=postbox_jobs&name=j"},
      {"api/resume", "table=postbox_jobs&name=j"},
      {"api/run-now", "table=postbox_jobs&name=none"},
      {"api/cancel", "table=postbox_jobs&id=" + Sql.count(ds, "SELECT MAX(id) FROM postbox_jobs")},
      {"api/replay-matching", "table=postbox_outbox&error=boom"},
      {"api/discard", "table=postbox_outbox&id=1"},
    };
    for (String[] post : posts) {
      assertTrue(http.post(post[0], post[1], AUTH).statusCode() < 500, post[0]);
    }
    assertEquals(List.of(), watch.missing());
  }

  @Test
  void nextPageLinkKeepsTheFilterAndThePageSize() {
    for (int i = 0; i < 3; i++) {
      add(Message.of("t", "{}").eventId("n-" + i));
      park("n-" + i, "50% off");
    }
    ConsoleClient http = console(builder());
    String page = http.get("parked?table=postbox_outbox&error=50%25+off&size=2").body();
    String next = page.replaceAll("(?s).*<a class=\"next\" href=\"([^\"]*)\".*", "$1");
    String id = next.replaceAll(".*after=", "");
    assertEquals(
        "parked?table=postbox_outbox&amp;error=50%25+off&amp;size=2&amp;after=" + id, next);
    String second = http.get(next.replace("&amp;", "&")).body();
    assertTrue(second.contains("n-2") && !second.contains("n-1"), second);
  }

  @Test
  void hostileParametersAreRefusedWithTheirNameAndWriteNothing() {
    add(Message.of("t", "{}").key("k").eventId("p-1"));
    park("p-1", "boom");
    ConsoleClient http = acting();
    String[][] gets = {
      {"parked?table=postbox_outbox'--", "table"},
      {"parked?table=", "table"},
      {"parked", "table"},
      {"parked?table=postbox_outbox&after=1;DROP%20TABLE%20postbox_outbox", "after"},
      {"parked?table=postbox_outbox&after=99999999999999999999", "after"},
      {"parked?table=postbox_outbox&after=-1", "after"},
      {"parked?table=postbox_outbox&size=0", "size"},
      {"parked?table=postbox_outbox&size=501", "size"},
      {"parked?table=postbox_outbox&topic='%20OR%201=1%20--", "topic"},
      {"parked?table=postbox_outbox&topic=%F0%9F%92%A5", "topic"},
      {"parked?table=postbox_outbox&key=" + "k".repeat(256), "key"},
      {"parked?table=postbox_outbox&key=%00", "key"},
      {"parked?table=postbox_outbox&error=" + "e".repeat(201), "error"},
      {"parked?table=postbox_outbox&table=postbox_jobs", "table"},
      {"parked?table=postbox_outbox&sort=id", "sort"},
      {"blocked?table=postbox_outbox&id=1", "id"},
      {"api/overview?x=1", "x"},
    };
    for (String[] get : gets) {
      HttpResponse<String> r = http.get(get[0]);
      assertEquals(400, r.statusCode(), get[0] + ": " + r.body());
      assertTrue(r.body().contains(get[1]), get[0] + " names " + get[1] + ": " + r.body());
    }
    String[][] posts = {
      {"api/discard", "table=postbox_outbox&id=1%20OR%201=1", "id"},
      {"api/discard", "table=postbox_outbox&id=0", "id"},
      {"api/discard", "table=postbox_outbox", "id"},
      {"api/discard", "table=postbox_outbox&id=", "id"},
      {"api/discard-matching", "table=postbox_outbox&key=k&key=k", "key"},
      {"api/discard-matching", "table=postbox_outbox&topic=a%27%3B", "topic"},
      {"api/discard-matching", "table=nope&error=boom", "table"},
      {"api/discard-matching", "table=postbox_outbox&error=%zz", "error"},
      {"api/cancel", "table=postbox_outbox&id=1", "table"},
      {"api/pause", "table=postbox_jobs&name=" + "n".repeat(201), "name"},
      {"api/run-now", "table=postbox_jobs&name=%3Cscript%3E", "name"},
    };
    for (String[] post : posts) {
      HttpResponse<String> r = http.post(post[0], post[1], AUTH);
      assertEquals(400, r.statusCode(), post[1] + ": " + r.body());
      assertTrue(r.body().contains(post[2]), post[1] + " names " + post[2] + ": " + r.body());
    }
    assertEquals(1, parked(), "nothing written");
    assertEquals(1, rows());
    assertEquals(0, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs_flow"));
  }

  @Test
  void jobActionsCancelPauseAndResume() {
    Sql.commit(
        ds,
        c -> jobs.enqueue(c, Job.of("send-invoice", "{}").delay(java.time.Duration.ofHours(1))));
    long id = Sql.count(ds, "SELECT MAX(id) FROM postbox_jobs");
    ConsoleClient http = acting();
    assertEquals(
        200, http.post("api/pause", "table=postbox_jobs&name=send-invoice", AUTH).statusCode());
    try (var c = ds.getConnection()) {
      assertEquals(List.of("send-invoice"), jobs.paused(c));
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
    assertEquals(
        200, http.post("api/resume", "table=postbox_jobs&name=send-invoice", AUTH).statusCode());
    assertEquals(200, http.post("api/cancel", "table=postbox_jobs&id=" + id, AUTH).statusCode());
    assertEquals(0, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs"));
    assertEquals(409, http.post("api/cancel", "table=postbox_jobs&id=" + id, AUTH).statusCode());
    assertTrue(http.get("api/overview").body().contains("\"pausedNames\":[]"));
  }

  @Test
  void runNowRunsAScheduleOncePerClickAndNeverBesideItsRunningRun() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    JobHandler yearly =
        JobHandler.of(
            "yearly",
            run -> {
              if (runs.incrementAndGet() == 1) {
                release.await(60, TimeUnit.SECONDS);
              }
            });
    started(jobDispatcher(jobs, yearly).recurring(Schedule.cron("0 0 0 1 1 *"), "yearly", "{}"));
    Await.until(
        WAIT,
        "schedule stored",
        () -> Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs_schedules") == 1);
    ConsoleClient http = acting();
    assertTrue(http.get("api/schedules").body().contains("\"name\":\"yearly\""));

    assertEquals(
        200, http.post("api/run-now", "table=postbox_jobs&name=yearly", AUTH).statusCode());
    Await.until(WAIT, "first run started", () -> runs.get() == 1);
    assertEquals(
        200, http.post("api/run-now", "table=postbox_jobs&name=yearly", AUTH).statusCode());
    // the second run waits for the first: it is not enqueued while the first runs
    assertEquals(1, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE name = 'yearly'"));
    release.countDown();
    Await.until(WAIT, "second run", () -> runs.get() == 2);
    assertEquals(2, runs.get());
  }
}

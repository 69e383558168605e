package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.AutoCommitAdvice;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * What the outbox accepts and refuses (invalid messages and options, hostile names, outer
 * whitespace, duplicates, auto-commit connections, a missing table) and the ids it generates,
 * proven on every database. MySQL's and MariaDB's {@code utf8mb4_bin} is a PAD SPACE collation, so
 * there {@code "a"} equals {@code "a "}; elsewhere it does not.
 */
public abstract class OutboxInputContractTest extends OutboxSuite {
  private static final List<String> PADDED = List.of("order-1 ", " order-1", "order-1\u3000");

  private static void assertNamesTheWhitespaceRule(String field, InvalidValueException e) {
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("must not start or end with whitespace"), e.getMessage());
  }

  @Test
  void anEventIdDifferingOnlyByOuterWhitespaceIsRefusedNotDroppedAsADuplicate() {
    // regression: on MariaDB "order-1 " collided with "order-1" and add returned false
    Sql.commit(
        ds,
        c -> {
          assertTrue(outbox.add(c, Message.of("order.placed", "{}").eventId("order-1")));
          for (String padded : PADDED) {
            Boolean[] added = {null};
            InvalidValueException e =
                assertThrows(
                    InvalidValueException.class,
                    () ->
                        added[0] = outbox.add(c, Message.of("order.placed", "{}").eventId(padded)),
                    () -> "'" + padded + "' was not refused: add returned " + added[0]);
            assertNamesTheWhitespaceRule("eventId", e);
          }
          // the transaction is still usable
          assertFalse(outbox.add(c, Message.of("order.placed", "{}").eventId("order-1")));
        });
    assertEquals(1, rows());
    assertEquals("order-1", Sql.value(ds, "SELECT event_id FROM postbox_outbox"));
  }

  @Test
  void aKeyWithOuterWhitespaceIsRefusedAndInnerSpacesStayAllowed() {
    for (String padded : List.of("customer-7 ", " customer-7", "customer-7\u3000")) {
      assertNamesTheWhitespaceRule(
          "key",
          assertThrows(
              InvalidValueException.class,
              () -> Message.of("order.placed", "{}").key(padded),
              "'" + padded + "'"));
    }
    Sql.commit(
        ds,
        c ->
            assertTrue(
                outbox.add(
                    c, Message.of("order.placed", "{}").eventId("order 1").key("customer 7"))));
    assertEquals(1, rows());
    assertEquals("order 1", Sql.value(ds, "SELECT event_id FROM postbox_outbox"));
    assertEquals("customer 7", Sql.value(ds, "SELECT msg_key FROM postbox_outbox"));
  }

  @Test
  void replayAndDiscardRefuseAnEventIdWithOuterWhitespace() {
    add("order-1");
    Sql.commit(
        ds,
        c -> {
          for (String padded : PADDED) {
            assertNamesTheWhitespaceRule(
                "eventId",
                assertThrows(InvalidValueException.class, () -> outbox.replay(c, padded), padded));
            assertNamesTheWhitespaceRule(
                "eventId",
                assertThrows(InvalidValueException.class, () -> outbox.discard(c, padded), padded));
          }
        });
    assertEquals(1, rows());
  }

  @Test
  void anInstanceIdWithOuterWhitespaceIsRefused() {
    // leased_by fences completions: on MariaDB "a" and "a " would each pass the other's fence
    for (String padded : List.of("a ", " a", "a\u3000")) {
      assertNamesTheWhitespaceRule(
          "instanceId",
          assertThrows(
              InvalidValueException.class,
              () -> Dispatcher.builder(ds).instanceId(padded),
              "'" + padded + "'"));
    }
    Dispatcher inner = Dispatcher.builder(ds).outbox(outbox, e -> {}).instanceId("a b").build();
    assertEquals("a b", inner.instanceId());
  }

  @Test
  void duplicateEventIdIsANoOpThatDoesNotAbortTheTransaction() {
    Sql.commit(
        ds,
        c -> {
          assertTrue(outbox.add(c, Message.of("t", "{\"v\":1}").eventId("dup")));
          assertFalse(outbox.add(c, Message.of("t", "{\"v\":2}").eventId("dup")));
          // the transaction is still usable: this add and the commit succeed
          assertTrue(outbox.add(c, Message.of("t", "{}").eventId("after-dup")));
        });
    Sql.commit(
        ds,
        c -> {
          assertFalse(outbox.add(c, Message.of("t", "{}").eventId("dup")));
          assertEquals(
              2,
              outbox.addAll(
                  c,
                  List.of(
                      Message.of("t", "{}").eventId("new-1"),
                      Message.of("t", "{}").eventId("after-dup"),
                      Message.of("t", "{}").eventId("new-2"))));
        });
    assertEquals(4, rows());
    assertEquals(
        "{\"v\":1}", Sql.value(ds, "SELECT payload FROM postbox_outbox WHERE event_id = 'dup'"));
  }

  @Test
  void generatedEventIdsAreUniqueAndTimeOrdered() {
    Sql.commit(ds, c -> outbox.addAll(c, List.of(Message.of("t", "a"), Message.of("t", "b"))));
    List<String> ids = new ArrayList<>();
    try (Connection c = ds.getConnection();
        var rs =
            c.createStatement().executeQuery("SELECT event_id FROM postbox_outbox ORDER BY id")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
    assertEquals(2, ids.size());
    assertTrue(
        ids.get(0).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"),
        ids.get(0));
    assertTrue(ids.get(0).substring(0, 13).compareTo(ids.get(1).substring(0, 13)) <= 0);
  }

  @Test
  void autoCommitConnectionIsRefusedUnlessAllowed() throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      PostboxException e =
          assertThrows(PostboxException.class, () -> outbox.add(c, Message.of("t", "{}")));
      assertTrue(e.getMessage().contains("auto-commit"), e.getMessage());
      assertEquals(0, rows());
      assertTrue(Outbox.builder().allowAutoCommit(true).build().add(c, Message.of("t", "{}")));
      assertEquals(1, rows());
    }
  }

  @Test
  void theAutoCommitRefusalAdvisesTheCallersTransactionNotAllowAutoCommit() throws Exception {
    // regression: it advised allowAutoCommit(true), which gives up the atomicity it protects
    AutoCommitAdvice.assertGivenBy(ds, c -> outbox.add(c, Message.of("t", "{}")));
  }

  @Test
  void invalidMessagesAreRejectedNamingFieldAndLimitAndNothingIsWritten() {
    Map<String, Runnable> cases = new ConcurrentHashMap<>();
    cases.put("topic", () -> Message.of(null, "{}"));
    cases.put("topic ", () -> Message.of("", "{}"));
    cases.put("topic  ", () -> Message.of("x".repeat(201), "{}"));
    cases.put("topic   ", () -> Message.of("has space", "{}"));
    cases.put("topic    ", () -> Message.of(".starts-with-dot", "{}"));
    cases.put("eventId", () -> Message.of("t", "{}").eventId(""));
    cases.put("eventId ", () -> Message.of("t", "{}").eventId("x".repeat(129)));
    cases.put("eventId  ", () -> Message.of("t", "{}").eventId("line\nbreak"));
    cases.put("key", () -> Message.of("t", "{}").key("k".repeat(256)));
    cases.put("header name", () -> Message.of("t", "{}").header("", "v"));
    cases.put("header 'h'", () -> Message.of("t", "{}").header("h", "v".repeat(8193)));
    cases.put("header 'h' ", () -> Message.of("t", "{}").header("h", "a\r\nb"));
    cases.put("payload", () -> Message.of("t", null));
    cases.put("message", () -> outbox.add(null, null));
    cases.put("message ", () -> outbox.addAll(null, Arrays.asList((Message) null)));
    for (Map.Entry<String, Runnable> c : cases.entrySet()) {
      InvalidValueException e =
          assertThrows(InvalidValueException.class, c.getValue()::run, c.getKey());
      assertEquals(c.getKey().strip(), e.field(), e.getMessage());
    }
    Message many = Message.of("t", "{}");
    for (int i = 0; i < 64; i++) {
      many = many.header("h" + i, "v");
    }
    Message full = many;
    assertEquals(
        "headers",
        assertThrows(InvalidValueException.class, () -> full.header("h64", "v")).field());

    Outbox small = Outbox.builder().payloadLimit(10).build();
    InvalidValueException tooBig =
        assertThrows(
            InvalidValueException.class,
            () ->
                Sql.commit(
                    ds,
                    c ->
                        small.addAll(
                            c, List.of(Message.of("t", "ok"), Message.of("t", "ééééééé")))));
    assertEquals("payload", tooBig.field());
    assertTrue(
        tooBig.getMessage().contains("at most 10 bytes") && tooBig.getMessage().contains("has 14"),
        tooBig.getMessage());
    assertEquals(0, rows(), "a batch with one bad message writes nothing");
  }

  @Test
  void payloadWithNulAndOverlongNotifyChannelAreRefused() {
    InvalidValueException nul =
        assertThrows(
            InvalidValueException.class,
            () -> Sql.commit(ds, c -> outbox.add(c, Message.of("t", "a\u0000b"))));
    assertEquals("payload", nul.field());
    assertEquals(0, rows());
    String longName = "s".repeat(40) + "." + "t".repeat(40); // room for _dispatchers
    assertEquals(
        "notifyDispatchers",
        assertThrows(
                InvalidValueException.class,
                () -> Outbox.builder().table(longName).notifyDispatchers(true).build())
            .field());
    Outbox.builder().table(longName).build();
  }

  @Test
  void hostileTableNamesAndOptionsAreRejectedBeforeAnySql() {
    for (String name :
        List.of(
            "x;drop table users",
            "a-b",
            "o'brien",
            "\"quoted\"",
            "tab\u00e9",
            "x".repeat(64),
            "a.b.c",
            "",
            "1starts_with_digit",
            "x -- comment")) {
      InvalidValueException e =
          assertThrows(InvalidValueException.class, () -> Outbox.builder().table(name), name);
      assertEquals("table", e.field());
    }
    Outbox.builder().table("myschema.my_outbox");
    Dispatcher.Builder b = Dispatcher.builder(ds);
    assertEquals(
        "batchSize must be between 1 and 10000 but was 0",
        assertThrows(InvalidValueException.class, () -> b.batchSize(0)).getMessage());
    assertEquals(
        "concurrency", assertThrows(InvalidValueException.class, () -> b.concurrency(0)).field());
    assertEquals(
        "lease", assertThrows(InvalidValueException.class, () -> b.lease(Duration.ZERO)).field());
    assertEquals(
        "pollInterval",
        assertThrows(InvalidValueException.class, () -> b.pollInterval(Duration.ofMillis(1)))
            .field());
    assertEquals(
        "maxAttempts", assertThrows(InvalidValueException.class, () -> b.maxAttempts(0)).field());
    assertEquals(
        "instanceId", assertThrows(InvalidValueException.class, () -> b.instanceId("")).field());
    assertEquals(
        "payloadLimit",
        assertThrows(InvalidValueException.class, () -> Outbox.builder().payloadLimit(0)).field());
  }

  @Test
  void missingTableIsReportedWithTheSchemaFileToRun() {
    Outbox elsewhere = Outbox.builder().table("no_such_outbox").build();
    Dispatcher d = Dispatcher.builder(ds).outbox(elsewhere, new RecordingTransport()).build();
    PostboxException e = assertThrows(PostboxException.class, d::start);
    assertTrue(
        e.getMessage().contains("no_such_outbox") && e.getMessage().contains("/schema.sql"),
        e.getMessage());
    d.close();
  }

  @Test
  void aMissingTableNamesTheSchemaResourceInTheJarNotOnlyTheSourceRepositorysPath() {
    // regression: it named only sql/<db>/schema.sql, a path users of the jar do not have
    Outbox elsewhere = Outbox.builder().table("no_such_outbox").build();
    Dispatcher d = built(Dispatcher.builder(ds).outbox(elsewhere, new RecordingTransport()));
    String message = assertThrows(PostboxException.class, d::start).getMessage();
    String folder = db.sqlFolder().getFileName().toString();
    assertTrue(message.contains("META-INF/postbox/sql/" + folder + "/schema.sql"), message);
    assertTrue(message.contains("upgrade-"), message);
  }

  private void add(String eventId) {
    Sql.commit(ds, c -> outbox.add(c, Message.of("order.placed", "{}").eventId(eventId)));
  }
}

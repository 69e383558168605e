package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Sql;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The outbox's input rules where databases disagree, proven on every database: subclasses only say
 * which. MySQL's and MariaDB's {@code utf8mb4_bin} is a PAD SPACE collation, so there {@code "a"}
 * equals {@code "a "}; elsewhere it does not.
 */
public abstract class OutboxInputContractTest extends DatabaseTest {
  private static final List<String> PADDED = List.of("order-1 ", " order-1", "order-1\u3000");

  private final Outbox outbox = Outbox.builder().build();

  private long rows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }

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

  private void add(String eventId) {
    Sql.commit(ds, c -> outbox.add(c, Message.of("order.placed", "{}").eventId(eventId)));
  }
}

package dev.postbox.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.InvalidValueException;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Topic and job names are checked by a loop that must accept exactly what the old regex did; ids
 * and keys refuse outer whitespace, which MySQL's PAD SPACE collation would ignore.
 */
class RulesTest {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final String CHARS = "aZz09._-A/ é\u0000\n+:Ａ٣";

  @Test
  void nameAcceptsExactlyTheLettersDigitsDotsUnderscoresAndDashesOfTheRegex() {
    for (String name : new String[] {"a", "Z", "0", "order.placed", "a_b-c.9", "9lives"}) {
      assertEquals(name, Rules.name("topic", name));
    }
    Random random = new Random(42);
    for (int i = 0; i < 200_000; i++) {
      StringBuilder s = new StringBuilder();
      for (int n = 1 + random.nextInt(6); n > 0; n--) {
        s.append(CHARS.charAt(random.nextInt(CHARS.length())));
      }
      String value = s.toString();
      boolean accepted;
      try {
        Rules.name("topic", value);
        accepted = true;
      } catch (InvalidValueException e) {
        accepted = false;
      }
      assertEquals(NAME.matcher(value).matches(), accepted, value);
    }
  }

  @Test
  void aRefusedNameNamesTheFieldAndTheRule() {
    InvalidValueException e =
        assertThrows(InvalidValueException.class, () -> Rules.name("topic", "-dash-first"));
    assertEquals("topic", e.field());
    assertTrue(
        e.getMessage()
            .contains(
                "must contain only letters, digits, '.', '_' and '-' and start with a letter or"
                    + " digit (was '-dash-first')"),
        e.getMessage());
  }

  @Test
  void anIdWithALeadingOrTrailingSpaceIsRefusedNamingTheFieldAndWhere() {
    InvalidValueException trailing =
        assertThrows(InvalidValueException.class, () -> Rules.eventId("eventId", "order-1 "));
    assertEquals("eventId", trailing.field());
    assertEquals(
        "eventId must not start or end with whitespace (was 'order-1 ', U+0020 at index 7)",
        trailing.getMessage());
    InvalidValueException leading =
        assertThrows(InvalidValueException.class, () -> Rules.eventId("dedupeKey", " order-1"));
    assertEquals("dedupeKey", leading.field());
    assertEquals(
        "dedupeKey must not start or end with whitespace (was ' order-1', U+0020 at index 0)",
        leading.getMessage());
    assertEquals(
        "key",
        assertThrows(InvalidValueException.class, () -> Rules.id("key", " ", Rules.MAX_KEY))
            .field());
  }

  @Test
  void anInstanceIdWithOuterWhitespaceIsRefused() {
    for (String padded : new String[] {"dispatcher-1 ", " dispatcher-1", "dispatcher-1\u3000"}) {
      InvalidValueException e =
          assertThrows(InvalidValueException.class, () -> Rules.id("instanceId", padded, 100));
      assertEquals("instanceId", e.field());
      assertTrue(e.getMessage().contains("must not start or end with whitespace"), e.getMessage());
    }
  }

  @Test
  void unicodeWhitespaceSuchAsTheIdeographicSpaceIsRefusedToo() {
    InvalidValueException e =
        assertThrows(InvalidValueException.class, () -> Rules.eventId("eventId", "order-1\u3000"));
    assertEquals("eventId", e.field());
    assertTrue(e.getMessage().contains("U+3000 at index 7"), e.getMessage());
    assertThrows(InvalidValueException.class, () -> Rules.eventId("eventId", "\u2003order-1"));
  }

  @Test
  void anOuterTabIsRefusedAsAControlCharacter() {
    InvalidValueException e =
        assertThrows(InvalidValueException.class, () -> Rules.eventId("eventId", "order-1\t"));
    assertEquals("eventId", e.field());
    assertEquals(
        "eventId must not contain control characters (found one at index 7)", e.getMessage());
  }

  @Test
  void innerSpacesStayAllowed() {
    assertEquals("order 1", Rules.eventId("eventId", "order 1"));
    assertEquals("a\u3000b  c", Rules.eventId("eventId", "a\u3000b  c"));
    assertEquals("customer 7", Rules.id("key", "customer 7", Rules.MAX_KEY));
    assertEquals("host a", Rules.id("instanceId", "host a", 100));
  }
}

package dev.postbox.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.InvalidValueException;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Topic and job names are checked by a loop that must accept exactly what the old regex did. */
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
}

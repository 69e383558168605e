package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.InvalidValueException;
import dev.postbox.Message;
import dev.postbox.Outbox;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inputs the property test leaves out because each once broke the promise "bad input throws
 * InvalidValueException, nothing is written, and what is accepted is stored as given": a payload
 * with U+0000 (PostgreSQL failed the INSERT and aborted the caller's transaction; fixed), and event
 * ids with unpaired surrogates (still open, see docs/reliability.md).
 */
class InputEdgeCasesTest {
  private final Outbox outbox = Outbox.builder().build();

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
  void eventIdsWithUnpairedSurrogatesAreStoredAsGivenOrRejected(String label) throws Exception {
    try (RelDb db = RelDb.open(label)) {
      db.reset();
      // three different event ids; the encoder turns each unpaired surrogate into a '?'
      List<String> ids = List.of("evt-\uD800", "evt-\uDBFF", "evt-\uDC00");
      List<String> accepted = new ArrayList<>();
      for (String id : ids) {
        try (Connection c = db.ds().getConnection()) {
          c.setAutoCommit(false);
          try {
            boolean added = outbox.add(c, Message.of("t", "{}").eventId(id));
            c.commit();
            assertTrue(
                added,
                label
                    + ": a new event id was taken for a duplicate of another one and dropped"
                    + " (stored: "
                    + db.rows("SELECT event_id FROM postbox_outbox").stream()
                        .map(r -> (String) r[0])
                        .toList()
                    + ")");
            accepted.add(id);
          } catch (InvalidValueException rejected) {
            assertEquals("eventId", rejected.field());
            c.rollback();
          }
        }
      }
      List<String> stored =
          db.rows("SELECT event_id FROM postbox_outbox ORDER BY id").stream()
              .map(r -> (String) r[0])
              .toList();
      assertEquals(accepted, stored, label + ": event ids not stored as given");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
  void aPayloadWithANulCharacterIsRejectedAsInvalidInput(String label) throws Exception {
    try (RelDb db = RelDb.open(label)) {
      db.reset();
      try (Connection c = db.ds().getConnection()) {
        c.setAutoCommit(false);
        InvalidValueException e =
            assertThrows(
                InvalidValueException.class,
                () -> outbox.add(c, Message.of("t", "{\"a\":\"x\u0000y\"}").eventId("nul")),
                label);
        assertEquals("payload", e.field());
        c.rollback();
      }
    }
  }
}

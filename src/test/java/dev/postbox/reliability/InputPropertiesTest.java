package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.postbox.InvalidValueException;
import dev.postbox.Job;
import dev.postbox.Jobs;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.internal.HeadersCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Scenario 11, input half, property style: seeded random topics, event ids, keys, headers and
 * payload sizes, hostile and edge-of-limit, checked against an oracle written from
 * docs/operations.md's rules. A rejected input must throw {@link InvalidValueException} naming the
 * first broken field (and the limit, for a length) and write nothing; an accepted one must be
 * stored exactly as given. The seed is printed with every failure: rerun with {@code
 * -Dpostbox.seed=<seed>}.
 *
 * <p>(jqwik 1.10.1 runs on this JUnit Platform, but prints a notice telling AI agents not to use
 * it; these properties use a seeded {@link Random} instead, see docs/reliability.md.)
 */
class InputPropertiesTest {
  private static final int PAYLOAD_LIMIT = 2048;
  private static final String VALID_NAME_CHARS =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
  private static final String[] HOSTILE = {
    ";", "'", "\"", "--", "/*", " ", "\\", "%", "é", "表", "😀", "\u0000", "\n", "\t", "\u007f",
    "\u0085", "\u200b", "$", "`", "(", "\r"
  };
  private static final String[] SAFE_TEXT = {
    "a", "Z", "0", "-", ":", "/", " ", ";", "'", "\"", "é", "表", "😀", "%", "\\", "{", "}"
  };

  private final Outbox outbox = Outbox.builder().payloadLimit(PAYLOAD_LIMIT).build();
  private final Jobs jobs = Jobs.builder().payloadLimit(PAYLOAD_LIMIT).build();

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
  void messagesFollowTheRulesOrAreRejectedWithNothingWritten(String label) throws Exception {
    properties(label, 400);
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
  @Tag("long")
  void longMessagesFollowTheRulesOrAreRejectedWithNothingWritten(String label) throws Exception {
    properties(label, 10_000);
  }

  private void properties(String label, int tries) throws Exception {
    long seed = Long.getLong("postbox.seed", System.nanoTime());
    Random random = new Random(seed);
    int accepted = 0;
    int rejected = 0;
    int batches = 0;
    try (RelDb db = RelDb.open(label)) {
      db.reset();
      for (int i = 0; i < tries; i++) {
        String context = "seed " + seed + ", try " + i + " on " + label;
        if (i % 3 == 0) {
          if (checkMessage(db, randomMessage(random), context)) {
            accepted++;
          } else {
            rejected++;
          }
        } else if (i % 3 == 1) {
          if (checkJob(db, randomJob(random), context)) {
            accepted++;
          } else {
            rejected++;
          }
        } else {
          checkBatch(db, random, context);
          batches++;
        }
      }
      assertEquals(0, db.count("SELECT COUNT(*) FROM postbox_outbox"));
      assertEquals(0, db.count("SELECT COUNT(*) FROM postbox_jobs"));
    }
    new Reporting.Line("input-properties", label)
        .put("seed", seed)
        .put("tries", tries)
        .put("accepted", accepted)
        .put("rejected", rejected)
        .put("batches", batches)
        .print(tries > 1000 ? "long" : "short");
    assertTrue(accepted > tries / 20 && rejected > tries / 20, "a lopsided generator");
  }

  // --- generation ---------------------------------------------------------------------------

  record Header(String name, String value) {}

  record MessageCase(
      String topic, String payload, String eventId, String key, List<Header> headers) {}

  record JobCase(String name, String payload, String dedupeKey, long delayMillis) {}

  private static MessageCase randomMessage(Random r) {
    List<Header> headers = new ArrayList<>();
    int count = r.nextInt(20) == 0 ? 60 + r.nextInt(10) : r.nextInt(4);
    for (int i = 0; i < count; i++) {
      headers.add(
          new Header(
              r.nextInt(10) == 0 ? text(r, 128, HOSTILE) : "h" + i,
              r.nextInt(3) == 0 ? text(r, 8192, HOSTILE) : text(r, 8192, SAFE_TEXT)));
    }
    return new MessageCase(
        name(r),
        payload(r),
        r.nextInt(4) == 0 ? null : text(r, 128, r.nextInt(3) == 0 ? HOSTILE : SAFE_TEXT),
        r.nextInt(3) == 0 ? null : text(r, 255, r.nextInt(4) == 0 ? HOSTILE : SAFE_TEXT),
        headers);
  }

  private static JobCase randomJob(Random r) {
    return new JobCase(
        name(r),
        payload(r),
        r.nextInt(3) == 0 ? null : text(r, 128, r.nextInt(3) == 0 ? HOSTILE : SAFE_TEXT),
        r.nextInt(4) == 0 ? r.nextLong(0, 10_000) : 0);
  }

  /** A topic or job name: mostly from the legal alphabet, sometimes hostile, around 200. */
  private static String name(Random r) {
    int length = length(r, 200);
    boolean hostile = r.nextInt(3) == 0;
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      if (hostile && r.nextInt(20) == 0) {
        s.append(HOSTILE[r.nextInt(HOSTILE.length)]);
      } else {
        s.append(VALID_NAME_CHARS.charAt(r.nextInt(VALID_NAME_CHARS.length())));
      }
    }
    return s.toString();
  }

  /** Text of about {@code limit} characters, drawn from {@code pool}. */
  private static String text(Random r, int limit, String[] pool) {
    int length = length(r, limit);
    StringBuilder s = new StringBuilder();
    while (s.length() < length) {
      s.append(r.nextInt(3) == 0 ? pool[r.nextInt(pool.length)] : "x");
    }
    if (s.length() > length && length > 0) {
      s.setLength(length);
      if (Character.isHighSurrogate(s.charAt(length - 1))) {
        s.setCharAt(length - 1, 'y'); // no unpaired surrogates: see docs/reliability.md
      }
    }
    return s.toString();
  }

  /** 0, 1, a few, or right around the limit. */
  private static int length(Random r, int limit) {
    return switch (r.nextInt(6)) {
      case 0 -> r.nextInt(3);
      case 1, 2 -> 1 + r.nextInt(Math.min(limit, 30));
      case 3 -> limit - 1 + r.nextInt(3);
      case 4 -> r.nextInt(limit + 1);
      default -> limit + r.nextInt(limit + 1);
    };
  }

  /** A payload whose UTF-8 size is near the limit, with 1- to 4-byte characters. */
  private static String payload(Random r) {
    String[] chars = {"a", "é", "表", "😀", "\"", "\\", "\n"};
    int targetBytes = PAYLOAD_LIMIT - 8 + r.nextInt(16);
    if (r.nextInt(3) == 0) {
      targetBytes = r.nextInt(64);
    }
    StringBuilder s = new StringBuilder();
    int bytes = 0;
    while (bytes < targetBytes) {
      String c = chars[r.nextInt(chars.length)];
      s.append(c);
      bytes += utf8(c);
    }
    return s.toString();
  }

  // --- the oracle: docs/operations.md's rules, written independently of the library---------------

  private static boolean legalName(String s) {
    return s.length() >= 1 && s.length() <= 200 && s.matches("[A-Za-z0-9][A-Za-z0-9._-]*");
  }

  private static boolean legalText(String s, int max, boolean allowEmpty) {
    if (s.length() > max || (!allowEmpty && s.isEmpty())) {
      return false;
    }
    return s.chars().noneMatch(Character::isISOControl);
  }

  /** An id or key the database compares: legal text that neither starts nor ends in whitespace. */
  private static boolean legalId(String s, int max) {
    return legalText(s, max, false)
        && !Character.isWhitespace(s.codePointAt(0))
        && !Character.isWhitespace(s.codePointBefore(s.length()));
  }

  private static int utf8(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
  }

  /** The first field the rules reject, or null if the message is legal. */
  private static String expectedError(MessageCase m) {
    if (!legalName(m.topic())) {
      return "topic";
    }
    if (m.eventId() != null && !legalId(m.eventId(), 128)) {
      return "eventId";
    }
    if (m.key() != null && !legalId(m.key(), 255)) {
      return "key";
    }
    Map<String, String> seen = new LinkedHashMap<>();
    for (Header h : m.headers()) {
      if (!legalText(h.name(), 128, false)) {
        return "header name";
      }
      if (!legalText(h.value(), 8192, true)) {
        return "header '" + h.name() + "'";
      }
      seen.put(h.name(), h.value());
      if (seen.size() > 64) {
        return "headers";
      }
    }
    if (utf8(m.payload()) > PAYLOAD_LIMIT) {
      return "payload";
    }
    return null;
  }

  private static String expectedError(JobCase j) {
    if (!legalName(j.name())) {
      return "name";
    }
    if (j.dedupeKey() != null && !legalId(j.dedupeKey(), 128)) {
      return "dedupeKey";
    }
    if (utf8(j.payload()) > PAYLOAD_LIMIT) {
      return "payload";
    }
    return null;
  }

  private static Message build(MessageCase m) {
    Message message = Message.of(m.topic(), m.payload());
    if (m.eventId() != null) {
      message = message.eventId(m.eventId());
    }
    if (m.key() != null) {
      message = message.key(m.key());
    }
    for (Header h : m.headers()) {
      message = message.header(h.name(), h.value());
    }
    return message;
  }

  private static Job build(JobCase j) {
    Job job = Job.of(j.name(), j.payload());
    if (j.dedupeKey() != null) {
      job = job.dedupeKey(j.dedupeKey());
    }
    return j.delayMillis() > 0 ? job.delay(Duration.ofMillis(j.delayMillis())) : job;
  }

  // --- checks -------------------------------------------------------------------------------

  /** True if accepted (and stored exactly), false if rejected as the oracle said. */
  private boolean checkMessage(RelDb db, MessageCase m, String context) throws SQLException {
    String expected = expectedError(m);
    try (Connection c = db.ds().getConnection()) {
      c.setAutoCommit(false);
      try {
        String actual = null;
        try {
          assertTrue(outbox.add(c, build(m)), context);
        } catch (InvalidValueException e) {
          actual = e.field();
          checkMessageText(e, context);
        }
        assertEquals(expected, actual, context + ": " + describe(m));
        long rows = countIn(c, "postbox_outbox");
        assertEquals(expected == null ? 1 : 0, rows, context + ": rows written");
        if (expected == null) {
          try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT event_id, topic, msg_key, payload, headers FROM postbox_outbox");
              ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            if (m.eventId() != null) {
              assertEquals(m.eventId(), rs.getString(1), context + ": event id stored");
            }
            assertEquals(m.topic(), rs.getString(2), context + ": topic stored");
            assertEquals(m.key(), rs.getString(3), context + ": key stored");
            assertEquals(m.payload(), rs.getString(4), context + ": payload stored");
            Map<String, String> headers = new LinkedHashMap<>();
            m.headers().forEach(h -> headers.put(h.name(), h.value()));
            assertEquals(headers, HeadersCodec.decode(rs.getString(5)), context + ": headers");
          }
        }
        return expected == null;
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }

  private boolean checkJob(RelDb db, JobCase j, String context) throws SQLException {
    String expected = expectedError(j);
    try (Connection c = db.ds().getConnection()) {
      c.setAutoCommit(false);
      try {
        String actual = null;
        try {
          assertTrue(jobs.enqueue(c, build(j)), context);
        } catch (InvalidValueException e) {
          actual = e.field();
          checkMessageText(e, context);
        }
        assertEquals(expected, actual, context + ": " + j.name().length() + " / " + j.dedupeKey());
        assertEquals(expected == null ? 1 : 0, countIn(c, "postbox_jobs"), context + ": rows");
        if (expected == null) {
          try (PreparedStatement ps =
                  c.prepareStatement("SELECT name, payload, dedupe_key FROM postbox_jobs");
              ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            assertEquals(j.name(), rs.getString(1), context);
            assertEquals(j.payload(), rs.getString(2), context);
            assertEquals(j.dedupeKey(), rs.getString(3), context);
          }
        }
        return expected == null;
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }

  /** A batch with at most one bad message is written whole or not at all. */
  private void checkBatch(RelDb db, Random r, String context) throws SQLException {
    List<MessageCase> cases = new ArrayList<>();
    int size = 2 + r.nextInt(30);
    for (int i = 0; i < size; i++) {
      MessageCase m = randomMessage(r);
      // legal ids, unique in the batch, so only the rules decide
      cases.add(new MessageCase(m.topic(), m.payload(), "b-" + i, null, List.of()));
    }
    // messages are built (topic checked) one by one, then addAll checks every payload's size
    String expected = null;
    for (MessageCase m : cases) {
      if (expected == null && !legalName(m.topic())) {
        expected = "topic";
      }
    }
    for (MessageCase m : cases) {
      expected = expected != null ? expected : expectedError(m);
    }
    try (Connection c = db.ds().getConnection()) {
      c.setAutoCommit(false);
      try {
        List<Message> messages = new ArrayList<>();
        String actual = null;
        try {
          for (MessageCase m : cases) {
            messages.add(build(m));
          }
          assertEquals(size, outbox.addAll(c, messages), context);
        } catch (InvalidValueException e) {
          actual = e.field();
        }
        assertEquals(expected, actual, context + ": batch");
        assertEquals(expected == null ? size : 0, countIn(c, "postbox_outbox"), context);
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }

  /** The message names the field first and, for a length, states the limit. */
  private static void checkMessageText(InvalidValueException e, String context) {
    String message = e.getMessage();
    assertTrue(message.startsWith(e.field()), context + ": " + message);
    if (message.contains("characters but has") || message.contains("bytes (UTF-8) but has")) {
      assertTrue(message.matches(".*\\d+.*\\d+.*"), context + ": no limit in " + message);
    }
    if (message.length() > 500) {
      fail(context + ": " + message.length() + "-character message echoes the input");
    }
  }

  private static long countIn(Connection c, String table) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String describe(MessageCase m) {
    return "topic "
        + m.topic().length()
        + " chars, eventId "
        + (m.eventId() == null ? "none" : m.eventId().length() + " chars")
        + ", key "
        + (m.key() == null ? "none" : m.key().length() + " chars")
        + ", "
        + m.headers().size()
        + " headers, payload "
        + utf8(m.payload())
        + " bytes";
  }
}

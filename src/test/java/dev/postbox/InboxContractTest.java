package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.AutoCommitAdvice;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The inbox's behaviour, proven on every database; subclasses only say which. */
public abstract class InboxContractTest extends DatabaseTest {
  private final Inbox inbox = Inbox.builder().build();

  private long rows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_inbox");
  }

  @Test
  void firstClaimIsTrueAndADuplicateIsFalseWithoutAbortingTheTransaction() {
    Sql.commit(
        ds,
        c -> {
          assertTrue(inbox.claim(c, "billing", "evt-1"));
          assertFalse(inbox.claim(c, "billing", "evt-1"));
          assertTrue(inbox.claim(c, "shipping", "evt-1"), "consumers are independent");
          // the transaction is still usable after the duplicate
          assertTrue(inbox.claim(c, "billing", "evt-2"));
        });
    Sql.commit(ds, c -> assertFalse(inbox.claim(c, "billing", "evt-1")));
    assertEquals(3, rows());
  }

  @Test
  void aRolledBackClaimLeavesTheEventToBeHandledAgain() {
    Sql.rollback(ds, c -> assertTrue(inbox.claim(c, "billing", "evt-1")));
    Sql.commit(ds, c -> assertTrue(inbox.claim(c, "billing", "evt-1")));
    assertEquals(1, rows());
  }

  @Test
  void aConcurrentClaimWaitsForTheFirstAndThenSeesTheDuplicate() throws Exception {
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    CompletableFuture<Boolean> first =
        CompletableFuture.supplyAsync(
            () -> {
              boolean[] result = new boolean[1];
              Sql.commit(
                  ds,
                  c -> {
                    result[0] = inbox.claim(c, "billing", "evt-race");
                    claimed.countDown();
                    commit.await();
                  });
              return result[0];
            });
    assertTrue(claimed.await(30, TimeUnit.SECONDS));
    CompletableFuture<Boolean> second =
        CompletableFuture.supplyAsync(
            () -> {
              boolean[] result = new boolean[1];
              Sql.commit(ds, c -> result[0] = inbox.claim(c, "billing", "evt-race"));
              return result[0];
            });
    commit.countDown();
    assertTrue(first.get(60, TimeUnit.SECONDS));
    assertFalse(second.get(60, TimeUnit.SECONDS));
    assertEquals(1, rows());
  }

  @Test
  void anEventIdDifferingOnlyByOuterWhitespaceIsRefusedNotSkippedAsADuplicate() {
    // regression: on MariaDB "evt-1 " collided with "evt-1", so a distinct event was skipped
    Sql.commit(
        ds,
        c -> {
          assertTrue(inbox.claim(c, "billing", "evt-1"));
          for (String padded : List.of("evt-1 ", " evt-1", "evt-1\u3000")) {
            Boolean[] claimed = {null};
            InvalidValueException e =
                assertThrows(
                    InvalidValueException.class,
                    () -> claimed[0] = inbox.claim(c, "billing", padded),
                    () -> "'" + padded + "' was not refused: claim returned " + claimed[0]);
            assertEquals("eventId", e.field(), e.getMessage());
            assertTrue(
                e.getMessage().contains("must not start or end with whitespace"), e.getMessage());
          }
          // the transaction is not aborted: a later statement on it still runs
          assertFalse(inbox.claim(c, "billing", "evt-1"));
        });
    assertEquals(1, rows());
    assertEquals("evt-1", Sql.value(ds, "SELECT event_id FROM postbox_inbox"));
  }

  @Test
  void theAutoCommitRefusalAdvisesTheCallersTransactionNotAllowAutoCommit() throws Exception {
    // regression: it advised allowAutoCommit(true), which gives up the atomicity it protects
    AutoCommitAdvice.assertGivenBy(ds, c -> inbox.claim(c, "billing", "e"));
  }

  @Test
  void invalidInputAndAutoCommitAreRefusedAndNothingIsWritten() throws Exception {
    Sql.commit(
        ds,
        c -> {
          assertEquals(
              "consumer",
              assertThrows(InvalidValueException.class, () -> inbox.claim(c, "bad consumer", "e"))
                  .field());
          assertEquals(
              "eventId",
              assertThrows(InvalidValueException.class, () -> inbox.claim(c, "billing", ""))
                  .field());
          assertEquals(
              "eventId",
              assertThrows(
                      InvalidValueException.class, () -> inbox.claim(c, "billing", "x".repeat(129)))
                  .field());
        });
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      assertTrue(
          assertThrows(PostboxException.class, () -> inbox.claim(c, "billing", "e"))
              .getMessage()
              .contains("auto-commit"));
    }
    assertEquals(
        "retention",
        assertThrows(InvalidValueException.class, () -> Inbox.builder().retention(Duration.ZERO))
            .field());
    assertEquals(0, rows());
  }

  @Test
  void dispatcherDeletesOnlyRowsOlderThanTheRetention() {
    Sql.commit(
        ds,
        c -> {
          inbox.claim(c, "billing", "old-1");
          inbox.claim(c, "billing", "old-2");
          inbox.claim(c, "billing", "recent");
        });
    Sql.update(
        ds,
        "UPDATE postbox_inbox SET created_at = "
            + Sql.nowPlusMillis(db)
            + " WHERE event_id LIKE 'old-%'",
        -Duration.ofDays(8).toMillis());
    started(
        Dispatcher.builder(ds)
            .inbox(inbox)
            .instanceId(nextInstanceId())
            .cleanupInterval(Duration.ofMillis(50)));

    Await.until(Duration.ofSeconds(60), "cleanup", () -> rows() == 1);
    assertEquals(1L, Sql.count(ds, "SELECT COUNT(*) FROM postbox_inbox WHERE event_id = 'recent'"));
  }
}

package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.KeyLockWaits;
import dev.postbox.testing.KeyOrderChecker;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/**
 * Per-key ordered delivery: messages of one key go out in the order their adds committed, one at a
 * time across all dispatchers, with a parked message blocking or skipped as configured; messages
 * without a key and other keys never wait.
 */
public abstract class OutboxOrderingContractTest extends OutboxSuite {

  /**
   * A transport that records each send in a {@link KeyOrderChecker} and fails a send when {@code
   * fails} says so (given the event id and the attempt).
   */
  static final class OrderedTransport implements Transport {
    final KeyOrderChecker checker = new KeyOrderChecker();
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    final Map<String, Integer> lastAttempt = new ConcurrentHashMap<>();
    volatile BiPredicate<String, Integer> fails = (id, attempt) -> false;

    @Override
    public void send(Envelope e) throws Exception {
      checker.sending(e.eventId());
      calls.computeIfAbsent(e.eventId(), k -> new AtomicInteger()).incrementAndGet();
      lastAttempt.put(e.eventId(), e.attempt());
      boolean fail = fails.test(e.eventId(), e.attempt());
      checker.sent(e.eventId(), !fail);
      if (fail) {
        throw new RejectedMessageException("refused " + e.eventId());
      }
    }

    int calls(String id) {
      AtomicInteger n = calls.get(id);
      return n == null ? 0 : n.get();
    }
  }

  /**
   * Adds {@code n} messages of {@code key} (ids key-0 …), one transaction each, in order. The
   * checker hears of each before its commit: a running dispatcher may send it before the commit
   * returns, and a send of an id the checker does not know is not counted.
   */
  private void addKeyed(OrderedTransport t, Outbox o, String key, int n) {
    for (int i = 0; i < n; i++) {
      String id = key + "-" + i;
      t.checker.committed(key, id);
      Sql.commit(ds, c -> o.add(c, Message.of("t", "{}").eventId(id).key(key)));
    }
  }

  @Test
  void messagesOfOneKeyGoOutInCommitOrderEvenWhenTheFirstFailsOnce() {
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-0") && attempt == 1;
    addKeyed(t, outbox, "k", 200);
    started(dispatcher(t).concurrency(16));
    Await.until(WAIT, "200 delivered", () -> t.checker.delivered() == 200);
    assertEquals(0, t.checker.inversions(), "inversions");
    assertEquals(0, t.checker.overlaps(), "overlapping sends of the key");
    assertEquals("k-0", t.checker.firstSends("k").get(0));
    assertEquals(2, t.calls("k-0"), "the first message: failed once, then sent");
    Await.until(WAIT, "all rows finished", () -> rows() == 0);
  }

  @Test
  void otherKeysAndUnkeyedMessagesDoNotWaitForABlockedKey() {
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-0"); // parks at once: maxAttempts 1
    addKeyed(t, outbox, "k", 3);
    addKeyed(t, outbox, "j", 3);
    add(Message.of("t", "{}").eventId("plain"));
    started(dispatcher(t).maxAttempts(1));
    Await.until(
        WAIT,
        "the other key and the unkeyed message",
        () ->
            t.checker.delivered() == 3 && t.calls("plain") == 1 && Sql.count(ds, parkedSql()) == 1);
    assertEquals(0, t.calls("k-1"), "k-1 never attempted behind its parked head");
    assertEquals(0, t.calls("k-2"), "k-2 never attempted behind its parked head");
    assertEquals(0, t.checker.inversions());
  }

  @Test
  void aParkedHeadBlocksItsKeyUntilReplayedThenTheRestFollowInOrder() {
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-0");
    addKeyed(t, outbox, "k", 3);
    started(dispatcher(t).maxAttempts(1));
    Await.until(WAIT, "k-0 parked", () -> Sql.count(ds, parkedSql()) == 1);
    // k-1 and k-2 came in k-0's run; their hand-back is written after k-0's parking, perhaps in a
    // later batch: until then they are leased, neither due nor counted as blocked
    Await.until(
        WAIT,
        "k-1 and k-2 handed back",
        () ->
            Sql.count(
                    ds,
                    "SELECT COUNT(*) FROM postbox_outbox"
                        + " WHERE state = 0 AND msg_key = 'k' AND leased_by IS NULL")
                == 2);
    // a later message of another key is claimed after k-1 and k-2 would have been
    addKeyed(t, outbox, "marker", 1);
    Await.until(WAIT, "the marker", () -> t.calls("marker-0") == 1);
    assertEquals(0, t.calls("k-1") + t.calls("k-2"), "waiting, never attempted");
    assertEquals(
        2, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 0 AND msg_key = 'k'"));

    try (Connection c = ds.getConnection()) {
      assertEquals(1, outbox.stats(c).blockedKeys(), "blocked keys");
      assertEquals(2, outbox.stats(c).blocked(), "blocked rows");
      assertEquals(0, outbox.stats(c).due(), "due: none, all wait behind the parked head");
      List<BlockedKey> blocked = outbox.blockedKeys(c, 10);
      assertEquals(1, blocked.size());
      assertEquals("k", blocked.get(0).key());
      assertEquals("k-0", blocked.get(0).head().ref());
      assertEquals(2, blocked.get(0).waiting());
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }

    t.fails = (id, attempt) -> false;
    Sql.commit(ds, c -> outbox.replay(c, "k-0"));
    Await.until(WAIT, "the key delivered", () -> t.checker.delivered() == 4);
    assertEquals(List.of("k-0", "k-1", "k-2"), t.checker.firstSends("k").subList(0, 3));
    assertEquals(0, t.checker.inversions(), "inversions");
    assertEquals(2, t.calls("k-0"), "k-0: parked once, then sent after the replay");
  }

  @Test
  void discardingTheParkedHeadLetsTheRestOfItsKeyGoOnInOrder() {
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-0");
    addKeyed(t, outbox, "k", 3);
    started(dispatcher(t).maxAttempts(1));
    Await.until(WAIT, "k-0 parked", () -> Sql.count(ds, parkedSql()) == 1);
    assertEquals(0, t.calls("k-1"));
    Sql.commit(ds, c -> outbox.discard(c, "k-0"));
    Await.until(WAIT, "k-1 and k-2", () -> t.checker.delivered() == 2);
    assertEquals(List.of("k-0", "k-1", "k-2"), t.checker.firstSends("k"));
    Await.until(WAIT, "no rows left", () -> rows() == 0);
  }

  @Test
  void withSkipTheParkedMessageIsSetAsideAndItsKeyGoesOn() {
    Outbox skipping = Outbox.builder().onParked(OrderedParking.SKIP).build();
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-1");
    addKeyed(t, skipping, "k", 4);
    started(dispatcher(skipping, t).maxAttempts(1));
    Await.until(WAIT, "k-0, k-2, k-3", () -> t.checker.delivered() == 3);
    assertEquals(List.of("k-0", "k-1", "k-2", "k-3"), t.checker.firstSends("k"));
    assertEquals(1, Sql.count(ds, parkedSql()));
    try (Connection c = ds.getConnection()) {
      assertEquals(0, skipping.stats(c).blockedKeys());
      assertTrue(skipping.blockedKeys(c, 10).isEmpty());
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void otherKeysDoNotWaitEvenBehindMoreWaitingRowsThanAClaimSearchesForHeads() {
    // a claim of 5 looks for heads among the first 10 due rows; k's 150 waiting rows fill them
    // all, so it must look further to find j and the message without a key
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-0"); // parks at once: maxAttempts 1
    addKeyed(t, outbox, "k", 1);
    List<Message> waiting = new java.util.ArrayList<>();
    for (int i = 1; i <= 150; i++) {
      waiting.add(Message.of("t", "{}").eventId("k-" + i).key("k"));
      t.checker.committed("k", "k-" + i);
    }
    Sql.commit(ds, c -> outbox.addAll(c, waiting));
    addKeyed(t, outbox, "j", 3);
    Sql.commit(ds, c -> outbox.add(c, Message.of("t", "{}").eventId("plain")));
    started(dispatcher(t).maxAttempts(1).batchSize(5));
    Await.until(WAIT, "the other key", () -> t.checker.delivered() == 3);
    Await.until(WAIT, "the message without a key", () -> t.calls("plain") == 1);
    assertEquals(List.of("j-0", "j-1", "j-2"), t.checker.firstSends("j"));
    // k-0 may be sent after the others were: its claim shares the batch, not their order
    Await.until(WAIT, "k-0 parked", () -> Sql.count(ds, parkedSql()) == 1);
    assertEquals(1, t.calls("k-0"), "the head, parked at once");
    for (int i = 1; i <= 150; i++) {
      assertEquals(0, t.calls("k-" + i), "k-" + i + " never attempted behind its parked head");
    }
  }

  @Test
  void keysAfterManyBlockedKeysInKeyOrderAreReachedWalkAfterWalk() {
    // 30 parked heads (keys b00..b29) with 10 waiting rows each fill every window a claim of 5
    // searches, and each walk visits at most 5 keys: the healthy keys (y0..y4, last in key
    // order) are reached only if each walk goes on from where the one before stopped
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.startsWith("b") && id.endsWith("-0");
    List<Message> blocked = new ArrayList<>();
    for (int k = 0; k < 30; k++) {
      String key = String.format("b%02d", k);
      for (int i = 0; i <= 10; i++) {
        blocked.add(Message.of("t", "{}").eventId(key + "-" + i).key(key));
        t.checker.committed(key, key + "-" + i);
      }
    }
    Sql.commit(ds, c -> outbox.addAll(c, blocked));
    for (int k = 0; k < 5; k++) {
      addKeyed(t, outbox, "y" + k, 3);
    }
    started(dispatcher(t).maxAttempts(1).batchSize(5));
    Await.until(WAIT, "the healthy keys", () -> t.checker.delivered() == 15);
    for (int k = 0; k < 5; k++) {
      assertEquals(
          List.of("y" + k + "-0", "y" + k + "-1", "y" + k + "-2"), t.checker.firstSends("y" + k));
    }
    Await.until(WAIT, "every blocked head parked", () -> Sql.count(ds, parkedSql()) == 30);
    for (int k = 0; k < 30; k++) {
      assertEquals(0, t.calls(String.format("b%02d", k) + "-1"), "never attempted behind its head");
    }
    assertEquals(0, t.checker.inversions());
  }

  @Test
  void aRetriedHeadBehindMoreOfItsOwnRowsThanAClaimSearchesIsFoundAndGoesFirst() {
    // k-0 fails once; due again, it comes after its own 150 waiting rows in due order, so the
    // first 10 due rows a claim of 5 searches hold no head at all
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-0") && attempt == 1;
    List<Message> rows = new ArrayList<>();
    for (int i = 0; i <= 150; i++) {
      rows.add(Message.of("t", "{}").eventId("k-" + i).key("k"));
      t.checker.committed("k", "k-" + i);
    }
    Sql.commit(ds, c -> outbox.addAll(c, rows));
    started(dispatcher(t).maxAttempts(3).batchSize(5));
    Await.until(WAIT, "all 151 delivered", () -> t.checker.delivered() == 151);
    assertEquals(2, t.calls("k-0"), "failed once, then sent");
    assertEquals(1, t.calls("k-1"), "k-1 waited for k-0");
    assertEquals(0, t.checker.inversions());
  }

  @Test
  void aMessageBeingRetriedHoldsItsKey() {
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-1") && attempt <= 3;
    addKeyed(t, outbox, "k", 5);
    started(dispatcher(t).maxAttempts(5));
    Await.until(WAIT, "5 delivered", () -> t.checker.delivered() == 5);
    assertEquals(4, t.calls("k-1"), "three failures, then sent");
    assertEquals(1, t.calls("k-2"), "k-2 waited for k-1, sent once");
    assertEquals(List.of("k-0", "k-1", "k-2", "k-3", "k-4"), t.checker.firstSends("k"));
    assertEquals(0, t.checker.inversions());
  }

  @Test
  void aFailureInARunHandsTheRestBackWithoutCountingAnAttempt() {
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-2") && attempt == 1;
    addKeyed(t, outbox, "k", 6);
    started(dispatcher(t).batchSize(10));
    Await.until(WAIT, "6 delivered", () -> t.checker.delivered() == 6);
    assertEquals(0, t.checker.inversions());
    assertEquals(2, t.lastAttempt.get("k-2"), "k-2: its second attempt");
    for (String id : List.of("k-3", "k-4", "k-5")) {
      assertEquals(1, t.lastAttempt.get(id), id + ": handed back, attempt not counted");
      assertEquals(1, t.calls(id), id + ": sent once");
    }
  }

  @Test
  void aBatchTransportGetsTheRunsOfAKeyInOrderAndAFailureStopsItsKey() {
    OrderedTransport checked = new OrderedTransport();
    checked.fails = (id, attempt) -> id.equals("a-1") && attempt == 1;
    List<List<String>> batches = new ArrayList<>();
    Transport batching =
        new BatchTransport() {
          @Override
          public void send(Envelope e) throws Exception {
            checked.send(e);
          }

          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            List<String> ids = new ArrayList<>();
            batch.forEach(e -> ids.add(e.eventId()));
            synchronized (batches) {
              batches.add(ids);
            }
            BatchSendException failures = new BatchSendException();
            Set<String> failedKeys = new HashSet<>(); // a key stops at its first failure
            for (Envelope e : batch) {
              if (failedKeys.contains(e.key())) {
                failures.fail(e, new IllegalStateException("an earlier message of its key failed"));
                continue;
              }
              try {
                checked.send(e);
              } catch (Exception failed) {
                failures.fail(e, failed);
                failedKeys.add(e.key());
              }
            }
            if (!failures.failures().isEmpty()) {
              throw failures;
            }
          }
        };
    for (String key : List.of("a", "b", "c")) {
      addKeyed(checked, outbox, key, 20);
    }
    started(dispatcher(batching).batchSize(25));
    Await.until(WAIT, "60 delivered", () -> checked.checker.delivered() == 60);
    assertEquals(0, checked.checker.inversions(), "inversions");
    assertEquals(1, checked.calls("a-2"), "a-2: not sent in the batch where a-1 failed");
    assertEquals(1, checked.lastAttempt.get("a-2"), "a-2: handed back, attempt not counted");
    synchronized (batches) {
      for (List<String> batch : batches) {
        for (String key : List.of("a", "b", "c")) {
          int last = -1;
          for (String id : batch) {
            if (id.startsWith(key + "-")) {
              int n = Integer.parseInt(id.substring(2));
              assertTrue(n > last, "in order within a batch: " + batch);
              last = n;
            }
          }
        }
      }
    }
  }

  @Test
  void twoDispatchersNeverSendTwoMessagesOfOneKeyAtOnce() {
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.endsWith("-7") && attempt == 1;
    for (int k = 0; k < 12; k++) {
      addKeyed(t, outbox, "key" + k, 25);
    }
    started(dispatcher(t).concurrency(8).batchSize(20));
    started(dispatcher(t).concurrency(8).batchSize(20));
    Await.until(WAIT, "300 delivered", () -> t.checker.delivered() == 300);
    assertEquals(0, t.checker.overlaps(), "overlapping sends of one key");
    assertEquals(0, t.checker.inversions(), "inversions");
  }

  @Test
  void aSecondProducerOfAKeyWaitsForTheFirstToCommit() throws Exception {
    OrderedTransport t = new OrderedTransport();
    started(dispatcher(t));
    t.checker.committed("k", "first");
    t.checker.committed("k", "second");
    // set just before the first commits: the second add, waiting for the first transaction's
    // key lock, must return only after it (a counter bumped after commit() raced the second)
    AtomicBoolean firstCommitting = new AtomicBoolean();
    CompletableFuture<Boolean> second;
    try (Connection first = ds.getConnection()) {
      first.setAutoCommit(false);
      outbox.add(first, Message.of("t", "{}").eventId("first").key("k"));
      second =
          CompletableFuture.supplyAsync(
              () -> {
                AtomicBoolean afterFirst = new AtomicBoolean();
                Sql.commit(
                    ds,
                    c -> {
                      outbox.add(c, Message.of("t", "{}").eventId("second").key("k"));
                      afterFirst.set(firstCommitting.get());
                    });
                return afterFirst.get();
              });
      awaitWaitingProducer();
      assertFalse(second.isDone(), "the second add waits for the first transaction");
      firstCommitting.set(true);
      first.commit();
    }
    assertTrue(second.get(60, TimeUnit.SECONDS), "the second add returned after the first commit");
    Await.until(WAIT, "both delivered", () -> t.checker.delivered() == 2);
    assertEquals(List.of("first", "second"), t.checker.firstSends("k"));
  }

  @Test
  void unorderedAddsOfOneKeyDoNotWaitAndAParkedMessageBlocksNothing() throws Exception {
    Outbox unordered = Outbox.builder().orderedByKey(false).build();
    OrderedTransport t = new OrderedTransport();
    t.fails = (id, attempt) -> id.equals("k-0");
    try (Connection first = ds.getConnection()) {
      first.setAutoCommit(false);
      if (db.database() != Database.SQLITE) { // one writer at a time there, keys or not
        unordered.add(first, Message.of("t", "{}").eventId("open").key("k"));
      }
      // with the key not locked, this commits while the first transaction is open
      CompletableFuture.runAsync(() -> addKeyed(t, unordered, "k", 3)).get(60, TimeUnit.SECONDS);
      first.rollback();
    }
    started(dispatcher(unordered, t).maxAttempts(1));
    Await.until(WAIT, "k-1 and k-2", () -> t.checker.delivered() == 2);
    try (Connection c = ds.getConnection()) {
      assertEquals(0, unordered.stats(c).blockedKeys());
    }
  }

  /** Waits until the database shows an add waiting for another's key lock. */
  private void awaitWaitingProducer() {
    KeyLockWaits.await(ds, db.database(), 1, WAIT);
  }

  @Test
  void parkedMessagesOfSchemaTwoBlockTheirKeysAfterTheUpgradeUntilReplayedOrDiscarded() {
    // what UPGRADING.md tells: schema 2 parked a message without holding its key; after the upgrade
    // to schema 3 an outbox ordered by key (BLOCK_KEY, the default) holds the key behind it
    String folder = db.sqlFolder().getFileName().toString();
    db.resetSchema(java.nio.file.Path.of("src/test/resources/schema-v1", folder + ".sql"));
    db.runScript(db.sqlFolder().resolve("upgrade-1-to-2.sql"));
    Outbox schemaTwo = Outbox.builder().orderedByKey(false).build(); // as the previous release adds
    OrderedTransport t = new OrderedTransport();
    addKeyed(t, schemaTwo, "replayed", 1);
    addKeyed(t, schemaTwo, "discarded", 1);
    Sql.update(ds, "UPDATE postbox_outbox SET state = 2, attempts = 10");
    for (String id : List.of("replayed-1", "discarded-1")) {
      String key = id.substring(0, id.indexOf('-'));
      Sql.commit(ds, c -> schemaTwo.add(c, Message.of("t", "{}").eventId(id).key(key)));
    }
    t.checker.committed("replayed", "replayed-1");
    db.runScript(db.sqlFolder().resolve("upgrade-2-to-3.sql"));
    db.runScript(db.sqlFolder().resolve("upgrade-3-to-4.sql"));
    db.runScript(db.sqlFolder().resolve("upgrade-4-to-5.sql"));
    db.runScript(db.sqlFolder().resolve("upgrade-5-to-6.sql"));

    started(dispatcher(t));
    add(Message.of("t", "{}").eventId("barrier")); // claimed after the keys' pending rows would be
    Await.until(WAIT, "the barrier", () -> t.calls("barrier") == 1);
    assertEquals(0, t.calls("replayed-1") + t.calls("discarded-1"), "held behind the parked rows");
    try (Connection c = ds.getConnection()) {
      QueueStats stats = outbox.stats(c);
      assertEquals(2, stats.blockedKeys(), "blocked keys");
      assertEquals(2, stats.blocked(), "blocked rows");
      assertEquals(
          List.of("replayed", "discarded"),
          outbox.blockedKeys(c, 10).stream().map(BlockedKey::key).toList());
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }

    Sql.commit(ds, c -> outbox.replay(c, "replayed-0"));
    Sql.commit(ds, c -> outbox.discard(c, "discarded-0"));
    Await.until(WAIT, "the keys delivered", () -> rows() == 0);
    assertEquals(List.of("replayed-0", "replayed-1"), t.checker.firstSends("replayed"));
    assertEquals(0, t.checker.inversions(), "inversions");
    assertEquals(0, t.calls("discarded-0"), "discarded, never sent");
    assertEquals(1, t.calls("discarded-1"), "sent once its key was free");
  }

  private static String parkedSql() {
    return "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2";
  }
}

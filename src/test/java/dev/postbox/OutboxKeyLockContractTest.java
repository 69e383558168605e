package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.KeyLockWaits;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The key locks of an ordered outbox's adds, as producers see them: one {@code addAll} locks its
 * keys in one order, so two never deadlock whatever order their keys come in; two transactions
 * adding two keys in opposite orders by separate adds can, and then get the database's own error,
 * keep nothing of the failed transaction and succeed when retried; an {@code addAll} of many keys
 * still waits for, and holds back, the other adds of its keys.
 */
public abstract class OutboxKeyLockContractTest extends OutboxSuite {

  @Test
  void twoAddAllsOfTheSameKeysInOppositeOrdersNeverDeadlock() throws Exception {
    // 2 keys: one statement of locks and rows; 800: more rows than one statement takes; 2,500:
    // several lock statements on MySQL and H2, more keys than PostgreSQL locks one by one
    int[] sizes = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 800, 2_500, 2_500};
    long added = 0;
    try (ExecutorService threads = Executors.newCachedThreadPool()) {
      for (int round = 0; round < sizes.length; round++) {
        List<Message> ascending = new ArrayList<>();
        List<Message> descending = new ArrayList<>();
        for (int i = 0; i < sizes[round]; i++) {
          int down = sizes[round] - 1 - i;
          ascending.add(keyed("r" + round + "-up-" + i, "key-" + i));
          descending.add(keyed("r" + round + "-down-" + down, "key-" + down));
        }
        CountDownLatch start = new CountDownLatch(1);
        Future<?> up = threads.submit(() -> addAllAndCommit(start, ascending));
        Future<?> down = threads.submit(() -> addAllAndCommit(start, descending));
        start.countDown();
        up.get(60, TimeUnit.SECONDS);
        down.get(60, TimeUnit.SECONDS);
        added += 2L * sizes[round];
        assertEquals(added, rows(), "rows after round " + round);
      }
    }
  }

  @Test
  void separateAddsOfTwoKeysInOppositeOrdersFailWithTheDatabasesOwnErrorAndARetrySucceeds()
      throws Exception {
    Message t1First = keyed("t1-a", "a");
    Message t1Second = keyed("t1-b", "b");
    Message t2First = keyed("t2-b", "b");
    Message t2Second = keyed("t2-a", "a");
    try (Connection t1 = connection();
        Connection t2 = connection();
        ExecutorService threads = Executors.newCachedThreadPool()) {
      if (db.database() == Database.SQLITE) {
        // one writer: the second transaction cannot lock its first key before the first ends
        outbox.add(t1, t1First);
        Future<PostboxException> second =
            threads.submit(() -> addAndCommit(t2, List.of(t2First, t2Second)));
        outbox.add(t1, t1Second);
        assertFalse(second.isDone(), "the second transaction waits for the first");
        t1.commit();
        assertNull(second.get(60, TimeUnit.SECONDS), "the second transaction, after the first");
        assertEquals(4, rows(), "both transactions' rows");
        return;
      }
      outbox.add(t1, t1First); // T1 holds a
      outbox.add(t2, t2First); // T2 holds b
      // each asks for the other's key: the database ends one of them (H2 maybe both)
      Future<PostboxException> one = threads.submit(() -> addAndCommit(t1, List.of(t1Second)));
      Future<PostboxException> two = threads.submit(() -> addAndCommit(t2, List.of(t2Second)));
      List<List<Message>> failed = new ArrayList<>();
      for (Future<PostboxException> outcome : List.of(one, two)) {
        PostboxException e = outcome.get(60, TimeUnit.SECONDS);
        if (e == null) {
          continue;
        }
        SQLException cause = assertInstanceOf(SQLException.class, e.getCause(), e.toString());
        assertTrue(
            isDeadlockOrLockTimeout(cause),
            "the database's deadlock or lock timeout: SQLState "
                + cause.getSQLState()
                + ", code "
                + cause.getErrorCode()
                + ": "
                + cause);
        failed.add(outcome == one ? List.of(t1First, t1Second) : List.of(t2First, t2Second));
      }
      assertFalse(failed.isEmpty(), "one transaction failed");
      if (db.database() != Database.H2) { // H2 sees no deadlock between statements: both time out
        assertEquals(1, failed.size(), "failed transactions");
      }
      assertEquals(4 - 2 * failed.size(), rows(), "rows: the committed transaction's, whole");
      for (List<Message> transaction : failed) {
        for (Message m : transaction) {
          assertEquals(0, rowsOf(m.eventId()), m.eventId() + " of the rolled back transaction");
        }
        // the caller retries the whole transaction, as for any deadlock
        Sql.commit(ds, c -> transaction.forEach(m -> outbox.add(c, m)));
      }
    }
    assertEquals(4, rows(), "rows after the retry");
    for (String id : List.of("t1-a", "t1-b", "t2-a", "t2-b")) {
      assertEquals(1, rowsOf(id), id);
    }
  }

  @Test
  void anAddAllOfManyKeysWaitsForAnOpenAddOfOneOfThemAndHoldsBackTheNext() throws Exception {
    // 800 keys: more than one statement's rows, each key locked; 1,500: more keys than
    // PostgreSQL locks one by one, so there it locks the whole table's keys instead
    List<String> expected = new ArrayList<>();
    try (ExecutorService threads = Executors.newCachedThreadPool()) {
      for (int n : new int[] {800, 1_500}) {
        String first = n + "-first";
        String last = n + "-last";
        try (Connection open = connection()) {
          outbox.add(open, keyed(first, "key-7"));
          Future<?> many =
              threads.submit(() -> Sql.commit(ds, c -> outbox.addAll(c, many(n + "-a", n))));
          KeyLockWaits.await(ds, db.database(), 1, WAIT);
          assertFalse(many.isDone(), n + " keys: the addAll waits for the open add of one");
          open.commit();
          many.get(60, TimeUnit.SECONDS);
        }
        try (Connection open = connection()) {
          outbox.addAll(open, many(n + "-b", n));
          Future<?> after =
              threads.submit(() -> Sql.commit(ds, c -> outbox.add(c, keyed(last, "key-7"))));
          KeyLockWaits.await(ds, db.database(), 1, WAIT);
          assertFalse(after.isDone(), n + " keys: an add of one waits for the open addAll");
          open.commit();
          after.get(60, TimeUnit.SECONDS);
        }
        expected.addAll(List.of(first, n + "-a-7", n + "-b-7", last));
      }
    }
    assertEquals(2L * (800 + 1_500) + 4, rows(), "rows");
    assertEquals(expected, idsInOrder("key-7"), "the key's messages in commit order");
  }

  private static Message keyed(String eventId, String key) {
    return Message.of("t", "{}").eventId(eventId).key(key);
  }

  /** Messages {@code prefix-0 …} of keys {@code key-0 …}. */
  private static List<Message> many(String prefix, int n) {
    List<Message> messages = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      messages.add(keyed(prefix + "-" + i, "key-" + i));
    }
    return messages;
  }

  private Void addAllAndCommit(CountDownLatch start, List<Message> messages) throws Exception {
    start.await();
    Sql.commit(ds, c -> outbox.addAll(c, messages));
    return null;
  }

  /** Adds {@code messages} one by one on {@code c} and commits; on a failure, rolls back. */
  private PostboxException addAndCommit(Connection c, List<Message> messages) throws SQLException {
    try {
      for (Message m : messages) {
        outbox.add(c, m);
      }
      c.commit();
      return null;
    } catch (PostboxException e) {
      c.rollback();
      return e;
    }
  }

  /**
   * A connection of its own, in a transaction (on H2 with a short lock timeout: its locks wait for
   * that, not for a deadlock detector).
   */
  private Connection connection() throws SQLException {
    Connection c = DriverManager.getConnection(db.url(), db.user(), db.password());
    if (db.database() == Database.H2) {
      try (Statement s = c.createStatement()) {
        s.execute("SET LOCK_TIMEOUT 1000");
      }
    }
    c.setAutoCommit(false);
    return c;
  }

  private boolean isDeadlockOrLockTimeout(SQLException e) {
    return switch (db.database()) {
      case POSTGRESQL -> "40P01".equals(e.getSQLState());
      case MYSQL -> e.getErrorCode() == 1213;
      case H2 -> e.getErrorCode() == 50200 || e.getErrorCode() == 40001;
      case SQLITE -> false;
    };
  }

  private long rowsOf(String eventId) {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE event_id = ?", eventId);
  }

  private List<String> idsInOrder(String key) throws SQLException {
    List<String> ids = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT event_id FROM postbox_outbox WHERE msg_key = ? ORDER BY id")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
    }
    return ids;
  }
}

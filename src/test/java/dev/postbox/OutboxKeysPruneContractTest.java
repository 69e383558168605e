package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.postbox.internal.KeysPrune;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.Await;
import dev.postbox.testing.KeyLockWaits;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The keys table of an outbox ordered by key (MySQL, MariaDB, H2) follows the keys in use: keys
 * with no pending or parked message are pruned, never one an open add holds, and the adds of a key
 * stay in commit order while prunes run.
 */
public abstract class OutboxKeysPruneContractTest extends OutboxSuite {

  private KeysPrune prune() {
    return new KeysPrune(ds, Dialects.of(db.database()), "postbox_outbox", "test", () -> false);
  }

  private List<String> keys() {
    List<String> keys = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT msg_key FROM postbox_outbox_keys ORDER BY msg_key");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        keys.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return keys;
  }

  private static Message keyed(String eventId, String key) {
    return Message.of("t", "{}").eventId(eventId).key(key);
  }

  @Test
  void keysWithNoPendingOrParkedMessageArePrunedAndTheOthersKept() throws Exception {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 2_500; i++) { // more than two steps of the walk
      messages.add(keyed("gone-" + i, "gone-" + i));
    }
    messages.add(keyed("parked", "parked-key"));
    messages.add(keyed("waiting", "waiting-key"));
    Sql.commit(ds, c -> outbox.addAll(c, messages));
    Sql.update(ds, "DELETE FROM postbox_outbox WHERE event_id LIKE 'gone-%'"); // delivered
    Sql.update(ds, "UPDATE postbox_outbox SET state = 2 WHERE event_id = 'parked'");
    assertEquals(2_502, keys().size());

    prune().run();
    assertEquals(List.of("parked-key", "waiting-key"), keys());
  }

  @Test
  void aPruneSkipsTheKeyAnOpenAddHoldsAndItsAddsStayInCommitOrder() throws Exception {
    add(keyed("before", "held"), keyed("other", "free"));
    Sql.update(ds, "DELETE FROM postbox_outbox"); // delivered: both keys unused
    try (ExecutorService threads = Executors.newCachedThreadPool();
        Connection open = ds.getConnection()) {
      open.setAutoCommit(false);
      outbox.add(open, keyed("first", "held"));
      threads.submit(() -> prune().run()).get(60, TimeUnit.SECONDS); // never waits for the add
      // the held key's row stays; the free one goes in the same prune, which a wait for the held
      // row (ended by a lock timeout, the prune's transaction rolled back) would have lost
      assertEquals(List.of("held"), keys(), "the held key's row stays, the free one is pruned");

      Future<?> next =
          threads.submit(() -> Sql.commit(ds, c -> outbox.add(c, keyed("next", "held"))));
      KeyLockWaits.await(ds, db.database(), 1, WAIT);
      assertFalse(next.isDone(), "the next add of the key waits for the open one");
      open.commit();
      next.get(60, TimeUnit.SECONDS);
    }
    List<String> inOrder = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT event_id FROM postbox_outbox ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        inOrder.add(rs.getString(1));
      }
    }
    assertEquals(List.of("first", "next"), inOrder);
  }

  @Test
  void aDispatcherPrunesTheKeysOfWhatItDelivered() throws Exception {
    RecordingTransport transport = new RecordingTransport();
    started(dispatcher(transport).cleanupInterval(Duration.ofMillis(50)));
    for (int i = 0; i < 100; i++) {
      add(keyed("m-" + i, "k-" + i));
    }
    Await.until(WAIT, "delivered", () -> transport.total.get() == 100 && rows() == 0);
    Await.until(WAIT, "keys pruned", () -> keys().isEmpty());
  }
}
